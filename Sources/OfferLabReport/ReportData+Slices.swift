import OfferLabWriters

/// The slices of a night (docs/analysis.md §7) as the report shows them: per slice field, per offering, each
/// level's users per group, its comparisons and whether its own sample-ratio check flags.
struct SliceFieldReport: Sendable, Equatable {
    /// The field (`country`, `platform`).
    var dimension: String
    /// The offerings in output order, those with levels of this field only.
    var offerings: [SliceOfferingReport]
}

struct SliceOfferingReport: Sendable, Equatable {
    var offeringID: String
    /// Levels in output order (rank order, `(other)` last).
    var levels: [SliceLevelReport]
}

struct SliceLevelReport: Sendable, Equatable {
    var level: String
    /// Per group in output order: its name and users in this level.
    var users: [(group: String, count: Int)]
    /// Per treatment, `conversion` before `arpu`.
    var comparisons: [Comparison]
    /// nil when the level has no users.
    var sampleRatioFlagged: Bool?
    /// The groups whose counted purchases and renewals in this level carry no money at all
    /// (every one in a currency without a rate, or priced 0).
    var groupsWithoutMoney: Set<String> = []

    static func == (left: SliceLevelReport, right: SliceLevelReport) -> Bool {
        left.level == right.level && left.users.elementsEqual(right.users) { $0.group == $1.group && $0.count == $1.count }
            && left.comparisons == right.comparisons && left.sampleRatioFlagged == right.sampleRatioFlagged
            && left.groupsWithoutMoney == right.groupsWithoutMoney
    }
}

extension ReportData {
    /// The slice fields in the order of their first `slice_summary` rows.
    static func sliceReports(_ night: NightTables, offeringIDs: [String]) -> [SliceFieldReport] {
        var dimensions: [String] = []
        for row in night.sliceSummary where !dimensions.contains(row.slice.dimension) { dimensions.append(row.slice.dimension) }
        return dimensions.map { dimension in
            let offerings = offeringIDs.compactMap { offeringID -> SliceOfferingReport? in
                let rows = night.sliceSummary.filter { $0.slice.offeringID == offeringID && $0.slice.dimension == dimension }
                var levels: [String] = []
                for row in rows where !levels.contains(row.slice.level) { levels.append(row.slice.level) }
                guard !levels.isEmpty else { return nil }
                return SliceOfferingReport(
                    offeringID: offeringID,
                    levels: levels.map { level in
                        let key = SliceKey(offeringID: offeringID, dimension: dimension, level: level)
                        let groups = rows.filter { $0.slice.level == level }
                        return SliceLevelReport(
                            level: level, users: groups.map { ($0.group, $0.metrics.users) },
                            comparisons: night.sliceComparisons.filter { $0.slice == key }.compactMap { Comparison(own: $0.comparison) },
                            sampleRatioFlagged: night.sliceSampleRatios.first { $0.slice == key }?.check.flagged,
                            groupsWithoutMoney: Set(
                                groups.filter { $0.metrics.purchases + $0.metrics.renewals > 0 && $0.metrics.grossRevenue == 0 }.map(
                                    \.group)
                            ))
                    })
            }
            return SliceFieldReport(dimension: dimension, offerings: offerings)
        }
    }
}
