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
    /// The tables of the slices (absent from a night that did not slice).
    static let sliceTables: [ResultSchema] = [.sliceSummary, .sliceComparisons, .sliceSRM]

    /// The slice fields in the order of their first rows, from the rows of the slice tables.
    static func sliceReports(summary: [Row], comparisons: [Row], srm: [Row], offeringIDs: [String]) -> [SliceFieldReport] {
        var dimensions: [String] = []
        for row in summary {
            if let dimension = row.text(.dimension), !dimensions.contains(dimension) { dimensions.append(dimension) }
        }
        func key(_ row: Row) -> [String?] { [row.text(.offeringID), row.text(.dimension), row.text(.level)] }
        return dimensions.map { dimension in
            let offerings = offeringIDs.compactMap { offeringID -> SliceOfferingReport? in
                let rows = summary.filter { $0.text(.offeringID) == offeringID && $0.text(.dimension) == dimension }
                var levels: [String] = []
                for row in rows {
                    if let level = row.text(.level), !levels.contains(level) { levels.append(level) }
                }
                guard !levels.isEmpty else { return nil }
                return SliceOfferingReport(
                    offeringID: offeringID,
                    levels: levels.map { level in
                        let levelKey = [offeringID, dimension, level]
                        return SliceLevelReport(
                            level: level,
                            users: rows.filter { $0.text(.level) == level }.map { ($0.text(.group) ?? "", $0.int(.users)) },
                            comparisons: comparisons.filter { key($0) == levelKey }.compactMap(Row.comparison),
                            sampleRatioFlagged: srm.first { key($0) == levelKey }?.bool(.srmFlag),
                            groupsWithoutMoney: Set(
                                rows.filter {
                                    $0.text(.level) == level && $0.int(.purchases) + $0.int(.renewals) > 0 && $0.double(.grossRevenue) == 0
                                }.compactMap { $0.text(.group) }))
                    })
            }
            return SliceFieldReport(dimension: dimension, offerings: offerings)
        }
    }
}
