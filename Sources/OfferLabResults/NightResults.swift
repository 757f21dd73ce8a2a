import OfferLabAnalysis
import OfferLabEvents

/// The results of one night, before they are written.
package struct NightResults {
    package var offerings: [OfferingResult]
    package var ingest: IngestCounters
    /// The `history_logs` files' counters (docs/statistics.md#the-apps-past): apart from the
    /// night's, which is judged on its logs alone; nil without the key.
    package var historyIngest: IngestCounters?
    package var cleanup: CleanupCounters
    package var globalInvalidAssignments: Int
    /// Valid log events before `as_of`, and the latest one's time (nil without any): for the
    /// checks of a broken night (`RunChecks.brokenNight`).
    package var eventsBeforeAsOf = 0
    package var latestEvent: Int64?
    /// `RunReport.warnings`.
    package var warnings: [String] = []
    /// The app's own track record's cohorts whose horizon reaches past their read day
    /// (docs/statistics.md#the-apps-own-track-record); nil without a past read with its charges.
    package var backtestCohorts: [BacktestCohorts.Cohort]?

    package init(
        offerings: [OfferingResult], ingest: IngestCounters, cleanup: CleanupCounters, globalInvalidAssignments: Int,
        eventsBeforeAsOf: Int = 0, latestEvent: Int64? = nil, warnings: [String] = []
    ) {
        self.offerings = offerings
        self.ingest = ingest
        self.cleanup = cleanup
        self.globalInvalidAssignments = globalInvalidAssignments
        self.eventsBeforeAsOf = eventsBeforeAsOf
        self.latestEvent = latestEvent
        self.warnings = warnings
    }
}
