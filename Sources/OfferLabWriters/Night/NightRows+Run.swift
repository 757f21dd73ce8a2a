/// A row of `quality`: a run-wide counter (empty `offering_id`) or an offering's.
package struct QualityRow: TypedRow, Equatable {
    package var offeringID = ""
    package var counter = ""
    package var count = 0

    static let table = TypedTable<QualityRow>(
        name: "quality", keys: [.offeringID, .counter],
        columns: [.init(.offeringID, \.offeringID), .init(.counter, \.counter), .init(.count, \.count)])
}

/// A row of `sources` (docs/analysis.md §5): a counter of one source format the job reads.
/// Run-wide, without `offering_id`: a re-run of the night replaces all of its rows.
package struct SourceRow: TypedRow, Equatable {
    package var source = ""
    package var counter = ""
    package var count = 0

    static let table = TypedTable<SourceRow>(
        name: "sources", keys: [.source, .counter],
        columns: [.init(.source, \.source), .init(.counter, \.counter), .init(.count, \.count)])
}

/// A row of `rejects` (CSV only): a rejected or noted line and why.
package struct RejectRow: TypedRow, Equatable {
    package var file = ""
    package var line = 0
    package var reason = ""
    package var text = ""

    static let table = TypedTable<RejectRow>(
        name: "rejects", keys: [.file, .line, .reason],
        columns: [.init(.file, \.file), .init(.line, \.line), .init(.reason, \.reason), .init(.text, \.text)])
}

/// A row of `skipped_files` (CSV only): a log file left out whole (`on_corrupt_file: skip`).
package struct SkippedFileRow: TypedRow, Equatable {
    package var file = ""
    package var error = ""

    static let table = TypedTable<SkippedFileRow>(
        name: "skipped_files", keys: [.file], columns: [.init(.file, \.file), .init(.error, \.error)])
}

/// A row of `rejected_money` (database only, for the report's banner): the money malformed
/// lines named in one currency, its lines and their amounts' sum; `currency` empty for the
/// lines whose amount cannot be read (`amount` empty). Run-wide: `offering_id` is empty.
package struct RejectedMoneyRow: TypedRow, Equatable {
    package var offeringID = ""
    package var currency = ""
    package var lines = 0
    package var amount: Double?
    /// The part of `amount` named by negative prices (≤ 0).
    package var negativeAmount: Double?

    static let table = TypedTable<RejectedMoneyRow>(
        name: "rejected_money", keys: [.offeringID, .currency],
        columns: [
            .init(.offeringID, \.offeringID), .init(.currency, \.currency), .init(.lines, \.lines), .init(.amount, \.amount),
            .init(.negativeAmount, \.negativeAmount),
        ])
}

/// A row of `offerings` (database only): an analysed offering and the settings it was analysed
/// with.
package struct OfferingRow: TypedRow, Equatable {
    package var offeringID = ""
    /// The offering's name in `subscription_offerings`.
    package var name = ""
    package var isActive = false
    package var controlGroup = ""
    /// The currency of every money amount.
    package var reportCurrency = ""
    package var alpha: Double?
    package var conversionWindowDays: Double?
    package var sequentialTuning: Double?
    /// The job's `decision` (`Decision`'s raw value).
    package var decision: String?

    static let table = TypedTable<OfferingRow>(
        name: "offerings", keys: [.offeringID],
        columns: [
            .init(.offeringID, \.offeringID), .init(.offeringName, \.name), .init(.isActive, \.isActive),
            .init(.controlGroup, \.controlGroup), .init(.reportCurrency, \.reportCurrency), .init(.alpha, \.alpha),
            .init(.conversionWindowDays, \.conversionWindowDays), .init(.sequentialTuning, \.sequentialTuning),
            .init(.decision, \.decision),
        ])
}

/// A row of `shown_products` (database only): a product on a group's paywall, `position` its
/// 0-based rank in display order.
package struct ShownProductRow: TypedRow, Equatable {
    package var offeringID = ""
    package var group = ""
    package var position = 0
    package var productID = ""
    package var type: String?
    package var fallbackDisplayPrice: String?
    package var isDefault = false
    package var badgeText: String?
    package var subtitleText: String?
    /// The currencies the group's charges of the product were paid in, `;`-separated (empty: none yet).
    package var chargedCurrencies = ""

    static let table = TypedTable<ShownProductRow>(
        name: "shown_products", keys: [.offeringID, .group, .position],
        columns: [
            .init(.offeringID, \.offeringID), .init(.group, \.group), .init(.position, \.position), .init(.productID, \.productID),
            .init(.productType, \.type), .init(.fallbackDisplayPrice, \.fallbackDisplayPrice), .init(.isDefault, \.isDefault),
            .init(.badgeText, \.badgeText), .init(.subtitleText, \.subtitleText), .init(.chargedCurrencies, \.chargedCurrencies),
        ])

    /// Whether `other` shows the same product the same way, wherever and in whichever group.
    package func showsTheSame(as other: ShownProductRow) -> Bool {
        productID == other.productID && type == other.type && fallbackDisplayPrice == other.fallbackDisplayPrice
            && isDefault == other.isDefault && badgeText == other.badgeText && subtitleText == other.subtitleText
    }
}

/// A row of `shown_copy` (database only): a group's paywall copy.
package struct ShownCopyRow: TypedRow, Equatable {
    package var offeringID = ""
    package var group = ""
    package var headerTitle: String?
    package var headerSubtitle: String?
    package var ctaButtonText: String?
    package var supportingText: String?

    static let table = TypedTable<ShownCopyRow>(
        name: "shown_copy", keys: [.offeringID, .group],
        columns: [
            .init(.offeringID, \.offeringID), .init(.group, \.group), .init(.headerTitle, \.headerTitle),
            .init(.headerSubtitle, \.headerSubtitle), .init(.ctaButtonText, \.ctaButtonText),
            .init(.supportingText, \.supportingText),
        ])
}
