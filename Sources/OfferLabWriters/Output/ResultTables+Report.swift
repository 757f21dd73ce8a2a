import OfferLabAnalysis
import OfferLabJob

/// The database-only tables that, with the CSV tables, hold everything a night's report shows,
/// so `offerlab report --db` can rebuild it without the job file or the offering tables.
extension ResultTables {
    /// The analysed offerings and the settings they were analysed with.
    static func offeringsTable(_ offerings: [OfferingResult], job: Job) -> ResultTable {
        var table = ResultTable(.offerings)
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
        var table = ResultTable(.shownProducts)
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
        var table = ResultTable(.shownCopy)
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
