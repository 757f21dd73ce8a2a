import OfferLabIngest

/// The night a run is for: the job's `as_of` instant, and the text forms the outputs write it
/// in, all made from that one instant (with `Timestamp`'s formatting).
public struct Night: Sendable, Hashable, Comparable {
    /// Microseconds since the epoch (UTC); events and assignments at or after it are ignored.
    public let microseconds: Int64

    public init(microseconds: Int64) {
        self.microseconds = microseconds
    }

    /// `as_of` as the job file or the command line writes it: a timestamp of the log grammar, or
    /// a date alone (its 00:00 UTC); nil when the text is neither.
    public init?(parsing text: String) {
        guard let microseconds = UTCTime.parseAsOf(text) else { return nil }
        self.init(microseconds: microseconds)
    }

    /// The UTC date of the instant (`YYYY-MM-DD`): the output folder's name and the database's
    /// key of the night's rows.
    public var date: String { Timestamp.formatDate(microseconds) }

    /// The instant in full (`2026-03-15T00:00:00Z`, with `.ffffff` when not a whole second):
    /// the `runs` table's `as_of` and the messages'.
    public var isoText: String { Timestamp.format(microseconds) }

    public static func < (lhs: Night, rhs: Night) -> Bool { lhs.microseconds < rhs.microseconds }
}
