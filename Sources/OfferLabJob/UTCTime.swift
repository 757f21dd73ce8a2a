import Foundation
import OfferLabIngest

/// Times as the job and the outputs write them (microseconds since the epoch, UTC).
public enum UTCTime {
    /// `as_of` from the job file or the command line: a timestamp of the log grammar, or a
    /// date alone (`2026-03-16` = its 00:00 UTC).
    public static func parseAsOf(_ text: String) -> Int64? {
        Timestamp.parse(text.utf8.count == 10 ? text + "T00:00:00Z" : text)
    }

    package static func isoText(date: Date) -> String {
        Timestamp.format(Int64((date.timeIntervalSince1970 * 1_000_000).rounded()))
    }
}
