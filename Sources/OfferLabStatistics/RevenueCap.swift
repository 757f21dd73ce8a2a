/// How per-user revenue is capped (winsorised) before `arpu_capped` (docs/analysis.md §4b).
public enum RevenueCapRule: Sendable, Equatable {
    /// The p-quantile (0 < p < 1) of the offering's positive per-user revenues, all groups pooled.
    case percentile(Double)
    /// A fixed amount in the report currency (> 0).
    case value(Double)

    /// The cap for an offering whose positive per-user revenues are `positiveRevenues` (any
    /// order; sorted in place). nil: no cap (a percentile of no value).
    /// - Complexity: O(m log m) for a percentile, m = `positiveRevenues.count`.
    public func cap(positiveRevenues: inout [Double]) -> Double? {
        switch self {
        case .value(let amount): return amount
        case .percentile(let p):
            positiveRevenues.sort()
            return linearQuantile(sorted: positiveRevenues, p)
        }
    }
}

/// The p-quantile of ascending `sorted` with linear interpolation between order statistics
/// (numpy's default, Hyndman–Fan type 7): h = p·(m − 1), x_⌊h⌋ + (h − ⌊h⌋)·(x_⌊h⌋+1 − x_⌊h⌋),
/// the upper neighbour read as x_⌊h⌋ at the top. nil when `sorted` is empty.
public func linearQuantile(sorted: [Double], _ p: Double) -> Double? {
    guard !sorted.isEmpty else { return nil }
    let h = p * Double(sorted.count - 1)
    let lower = Int(h.rounded(.down))
    let upper = min(lower + 1, sorted.count - 1)
    return sorted[lower] + (h - Double(lower)) * (sorted[upper] - sorted[lower])
}
