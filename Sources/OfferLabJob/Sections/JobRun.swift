import Foundation
import OfferLabIngest
import OfferLabSupport
import OfferLabVocabulary

/// The job's run section: the night, the machine's share of it, and the checks of a night whose
/// inputs look broken (docs/reliability.md, A broken night).
public struct JobRun: Sendable {
    /// `as_of`: events and assignments at or after its instant are ignored.
    public var night: Night
    /// How many log files are read at once (and the cores shared out among their pieces,
    /// `LogIngest.SpareCores`), and how many threads clean the events up; nil: one per core.
    public var threads: Int?
    /// The library that inflates gzipped inputs (a property of the machine, not of the job
    /// file: the command line chooses it). Every number is the same whichever it is.
    public var inflater: Inflater = .fastestAvailable
    /// How long a run waits for another run of the same job to finish.
    public var lockTimeoutSeconds = 60.0
    /// The largest share by which lines read, or an offering's users, may fall since the
    /// previous successful night of the job; and which of the other checks are waived.
    public var maxVolumeDrop = 0.5
    public var allowEmptyNight = false
    public var allowStaleLogs = false
    public var allowEmptyOfferings = false
    /// Work is bounded by the data: `as_of` may be at most this many days after the latest event
    /// read, and at most a day in the future unless allowed.
    public var maxDaysAfterLastEvent = 31.0
    public var allowFutureAsOf = false

    static let keys = [
        JobKey(
            name: "as_of", defaultValue: "today 00:00 UTC", help: "2026-03-16[T00:00:00Z]: later events are ignored"),
        JobKey(name: "threads", defaultValue: "one per core", help: "files read at once, clean-up threads"),
        JobKey(name: "lock_timeout_seconds", defaultValue: "60", help: "how long to wait for a running run"),
        JobKey(
            name: "max_volume_drop", defaultValue: "0.5",
            help: "fail above this fall of lines or users since last night"),
        JobKey(name: "allow_empty_night", defaultValue: "`false`", help: "true: a night with no log event before as_of passes"),
        JobKey(
            name: "allow_stale_logs", defaultValue: "`false`",
            help: "true: logs with nothing since last night's as_of pass"),
        JobKey(name: "allow_empty_offerings", defaultValue: "`false`", help: "true: an analysed offering without users passes"),
        JobKey(
            name: "max_days_after_last_event", defaultValue: "31",
            help: "fail if as_of is more days than this after the last event"),
        JobKey(name: "allow_future_as_of", defaultValue: "`false`", help: "true: an as_of more than a day after now passes"),
    ]
}

extension JobRun {
    /// The command line's `as_of`, `threads` and inflater win over the job file's (`overrides`);
    /// `now` gives the default `as_of` (today 00:00 UTC).
    init(_ reader: JobValues, overrides: JobOverrides, now: Date) throws {
        if let asOf = overrides.asOf {
            night = asOf
        } else if let text = try reader.optionalText("as_of") {
            guard let parsed = Night(parsing: text) else {
                throw reader.fail("as_of", "'\(text)' is not a timestamp (use 2026-03-16 or 2026-03-16T00:00:00Z)")
            }
            night = parsed
        } else {
            night = Night(microseconds: Timestamp.startOfDay(Int64(now.timeIntervalSince1970 * 1_000_000)))
        }
        threads =
            try overrides.threads
            ?? reader.optionalNumber("threads").map { value -> Int in
                guard value >= 1, value == value.rounded() else {
                    throw reader.fail(saying: "threads must be a whole number ≥ 1", key: "threads")
                }
                return Int(value)
            }
        if let threads, threads < 1 { throw OfferLabError(.badArgument, "--threads \(threads) must be at least 1") }
        if let inflater = overrides.inflater { self.inflater = inflater }
        lockTimeoutSeconds = try reader.number("lock_timeout_seconds", default: lockTimeoutSeconds)
        guard lockTimeoutSeconds >= 0 else {
            throw reader.fail(saying: "lock_timeout_seconds must not be negative", key: "lock_timeout_seconds")
        }
        maxVolumeDrop = try reader.number("max_volume_drop", default: maxVolumeDrop)
        guard maxVolumeDrop >= 0 && maxVolumeDrop <= 1 else {
            throw reader.fail(
                "max_volume_drop", "\(maxVolumeDrop) must be from 0 to 1 (a share of the previous night's volume; 1 allows any drop)")
        }
        allowEmptyNight = try reader.flag("allow_empty_night")
        allowStaleLogs = try reader.flag("allow_stale_logs")
        allowEmptyOfferings = try reader.flag("allow_empty_offerings")
        maxDaysAfterLastEvent = try reader.number("max_days_after_last_event", default: maxDaysAfterLastEvent)
        guard maxDaysAfterLastEvent >= 0 && maxDaysAfterLastEvent.isFinite else {
            throw reader.fail("max_days_after_last_event", "\(maxDaysAfterLastEvent) must be a number of days, 0 or more")
        }
        allowFutureAsOf = try reader.flag("allow_future_as_of")
    }
}
