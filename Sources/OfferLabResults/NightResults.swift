import OfferLabAnalysis
import OfferLabEvents

/// The results of one night, before they are written.
package struct NightResults {
    package var offerings: [OfferingResult]
    package var ingest: IngestCounters
    package var cleanup: CleanupCounters
    package var globalInvalidAssignments: Int
    /// `RunReport.warnings`.
    package var warnings: [String] = []

    package init(
        offerings: [OfferingResult], ingest: IngestCounters, cleanup: CleanupCounters, globalInvalidAssignments: Int,
        warnings: [String] = []
    ) {
        self.offerings = offerings
        self.ingest = ingest
        self.cleanup = cleanup
        self.globalInvalidAssignments = globalInvalidAssignments
        self.warnings = warnings
    }
}
