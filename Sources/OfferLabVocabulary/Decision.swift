/// Which inference the report's verdicts, headlines and "significant" marks use (docs/statistics.md, Sequential);
/// the CSV files and the database always carry both.
public enum Decision: String, Sendable {
    /// The always-valid (sequential) p-values and intervals: safe to read every night.
    case sequential
    /// The fixed-horizon ones: valid only when read once, at a size planned in advance.
    case fixed
}
