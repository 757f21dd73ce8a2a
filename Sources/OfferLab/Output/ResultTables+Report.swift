/// The database-only tables that, with the CSV tables, hold everything a night's report shows,
/// so `offerlab report --db` can rebuild it without the job file or the offering tables.
extension ResultTables {
    /// The analysed offerings and the settings they were analysed with.
    static func offeringsTable(_ offerings: [OfferingResult], job: Job) -> ResultTable {
        var table = ResultTable(
            name: "offerings",
            columns: [
                ("offering_id", .text), ("name", .text), ("is_active", .bool), ("control_group", .text), ("report_currency", .text),
                ("alpha", .real), ("conversion_window_days", .real), ("sequential_tuning", .real), ("decision", .text),
            ],
            keys: ["offering_id"])
        for result in offerings {
            table.rows.append([
                .text(result.offering.offeringID), .text(result.offering.name), .bool(result.offering.isActive),
                .text(result.offering.groups[result.controlGroup].name), .text(job.reportCurrency), .real(job.alpha),
                .real(job.conversionWindowDays), .real(job.sequentialTuning), .text(job.decision.rawValue),
            ])
        }
        return table
    }

    /// What each group was shown: its products in display order. `position` is the 0-based rank
    /// after sorting by the table's `position` (whose values may have gaps, repeats or NULLs).
    static func shownProductsTable(_ offerings: [OfferingResult]) -> ResultTable {
        var table = ResultTable(
            name: "shown_products",
            columns: [
                ("offering_id", .text), ("group", .text), ("position", .integer), ("product_id", .text), ("type", .text),
                ("fallback_display_price", .text), ("is_default", .bool), ("badge_text", .text), ("subtitle_text", .text),
            ],
            keys: ["offering_id", "group", "position"])
        for result in offerings {
            for group in result.offering.groups {
                for (rank, product) in group.products.enumerated() {
                    table.rows.append([
                        .text(result.offering.offeringID), .text(group.name), .integer(rank), .text(product.productID),
                        .optionalText(product.type), .optionalText(product.fallbackDisplayPrice), .bool(product.isDefault),
                        .optionalText(product.badgeText), .optionalText(product.subtitleText),
                    ])
                }
            }
        }
        return table
    }

    /// The paywall copy of each group that has a row in `subscription_offering_group_copy`.
    static func shownCopyTable(_ offerings: [OfferingResult]) -> ResultTable {
        var table = ResultTable(
            name: "shown_copy",
            columns: [
                ("offering_id", .text), ("group", .text), ("header_title", .text), ("header_subtitle", .text), ("cta_button_text", .text),
                ("supporting_text", .text),
            ],
            keys: ["offering_id", "group"])
        for result in offerings {
            for group in result.offering.groups {
                guard let copy = group.copy else { continue }
                table.rows.append([
                    .text(result.offering.offeringID), .text(group.name), .optionalText(copy.headerTitle),
                    .optionalText(copy.headerSubtitle),
                    .optionalText(copy.ctaButtonText), .optionalText(copy.supportingText),
                ])
            }
        }
        return table
    }
}
