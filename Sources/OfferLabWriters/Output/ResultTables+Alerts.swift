import OfferLabVocabulary

extension ResultColumn {
    // What changed since the job's previous successful night (docs/reliability.md, "Alerts"), in `alerts`.
    static let alertKind = ResultColumn("kind", .text)
    static let previousValue = ResultColumn("previous", .text)
    static let currentValue = ResultColumn("current", .text)
    static let message = ResultColumn("message", .text)
}

/// A row of `alerts`: one change since the job's previous successful night.
package struct AlertRow: TypedRow, Equatable {
    var offeringID = ""
    /// The treatment; empty for an alert on the offering (its sample ratio).
    var group = ""
    /// `status` or `sample_ratio`.
    var kind = ""
    /// The previous night's value; empty on a first night (or a treatment new tonight).
    var previous = ""
    var current = ""
    var message = ""

    static let table = TypedTable<AlertRow>(
        name: "alerts", keys: [.offeringID, .group, .alertKind],
        columns: [
            .init(.offeringID, \.offeringID), .init(.group, \.group), .init(.alertKind, \.kind), .init(.previousValue, \.previous),
            .init(.currentValue, \.current), .init(.message, \.message),
        ])

    /// The line `offerlab run` prints for it.
    var line: String { "alert: \(message)" }
}

extension ResultTables {
    /// What changed since `previous` (nil: a first night): a treatment's status (a move between
    /// `too_early` and `keep_running` is none), and an offering's always-valid sample ratio newly
    /// flagged. A first night alerts on every status that is not a running one, and on a flag.
    static func alerts(decisions: [DecisionRow], sampleRatios: [SampleRatioRow], previous: PreviousNight?) -> [AlertRow] {
        var alerts: [AlertRow] = []
        var offerings: [String] = []
        for row in decisions where !offerings.contains(row.offeringID) { offerings.append(row.offeringID) }
        for srm in sampleRatios where !offerings.contains(srm.offeringID) { offerings.append(srm.offeringID) }
        for offering in offerings {
            if let srm = sampleRatios.first(where: { $0.offeringID == offering }), srm.seqFlagged == true,
                previous?.sequentialSampleRatioFlags[offering] != true
            {
                let before = previous?.sequentialSampleRatioFlags[offering].map { String($0) } ?? ""
                let p = srm.seqPValue.map(ReportFormat.pValue) ?? "p unknown"
                alerts.append(
                    AlertRow(
                        offeringID: offering, kind: "sample_ratio", previous: before, current: "true",
                        message:
                            "\(offering): the groups' sizes no longer match the configured split (always-valid \(p)); do not act on its results until it is explained."
                    ))
            }
            for row in decisions where row.offeringID == offering {
                let before = previous?.statuses[PreviousNight.key(row.offeringID, row.group)]
                guard before != row.status else { continue }
                if row.status.isRunning && (before?.isRunning ?? true) { continue }
                let change = before.map { "\($0.rawValue) → \(row.status.rawValue)" } ?? row.status.rawValue
                alerts.append(
                    AlertRow(
                        offeringID: offering, group: row.group, kind: "status", previous: before?.rawValue ?? "",
                        current: row.status.rawValue,
                        message: "\(offering) \(row.group): \(change): \(row.reason)"))
            }
        }
        return alerts
    }
}
