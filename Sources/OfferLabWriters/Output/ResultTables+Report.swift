import OfferLabAnalysis
import OfferLabJob

/// The database-only tables that, with the CSV tables, hold everything a night's report shows,
/// so `offerlab report --db` can rebuild it without the job file or the offering tables.
extension ResultTables {
    /// The analysed offerings and the settings they were analysed with.
    static func offerings(_ offerings: [OfferingResult], settings: ResultTableSettings) -> [OfferingRow] {
        offerings.map { result in
            OfferingRow(
                offeringID: result.offering.offeringID, name: result.offering.name, isActive: result.offering.isActive,
                controlGroup: result.offering.groups[result.controlGroup].name, reportCurrency: settings.reportCurrency,
                alpha: settings.alpha, conversionWindowDays: settings.conversionWindowDays, sequentialTuning: settings.sequentialTuning,
                decision: settings.decision.rawValue)
        }
    }

    /// What each group was shown: its products in display order. `position` is the 0-based rank
    /// after sorting by the table's `position` (whose values may have gaps, repeats or NULLs).
    static func shownProducts(_ offerings: [OfferingResult]) -> [ShownProductRow] {
        offerings.flatMap { result in
            result.offering.groups.enumerated().flatMap { groupIndex, group in
                group.products.enumerated().map { rank, product in
                    let sold = result.products.first { $0.group == groupIndex && $0.productID == product.productID }
                    return ShownProductRow(
                        offeringID: result.offering.offeringID, group: group.name, position: rank, productID: product.productID,
                        type: product.type, fallbackDisplayPrice: product.fallbackDisplayPrice, isDefault: product.isDefault,
                        badgeText: product.badgeText, subtitleText: product.subtitleText,
                        chargedCurrencies: (sold?.chargeCurrencies ?? []).joined(separator: ";"))
                }
            }
        }
    }

    /// The paywall copy of each group that has a row in `subscription_offering_group_copy`.
    static func shownCopy(_ offerings: [OfferingResult]) -> [ShownCopyRow] {
        offerings.flatMap { result in
            result.offering.groups.compactMap { group in
                group.copy.map { copy in
                    ShownCopyRow(
                        offeringID: result.offering.offeringID, group: group.name, headerTitle: copy.headerTitle,
                        headerSubtitle: copy.headerSubtitle, ctaButtonText: copy.ctaButtonText, supportingText: copy.supportingText)
                }
            }
        }
    }
}
