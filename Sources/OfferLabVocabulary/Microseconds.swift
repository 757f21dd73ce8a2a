/// The unit every instant and duration of the pipeline is counted in: microseconds since the
/// epoch, UTC, as the log grammar gives them (docs/input-formats.md#timestamps).
public enum Microseconds {
    /// One day.
    public static let perDay: Int64 = 86_400_000_000
    /// One day, for arithmetic in fractions of a day.
    public static let perDayAsDouble = Double(perDay)
}
