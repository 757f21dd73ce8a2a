/// Holm–Bonferroni adjusted p-values, in the order of the input.
///
/// With the m p-values sorted ascending, p₍ᵢ₎ becomes max over j ≤ i of min(1, (m − j + 1)·p₍ⱼ₎).
/// Equal p-values get equal adjusted values whatever their order. Every adjusted value is at
/// least its raw value and at most 1. O(m log m).
///
/// - Precondition: every value is in [0, 1] (NaN is not a p-value; leave such rows out).
public func holmBonferroni(_ pValues: [Double]) -> [Double] {
    let m = pValues.count
    let order = pValues.indices.sorted { pValues[$0] < pValues[$1] || (pValues[$0] == pValues[$1] && $0 < $1) }
    var adjusted = [Double](repeating: 0, count: m)
    var running = 0.0
    for (rank, index) in order.enumerated() {
        running = max(running, min(1, Double(m - rank) * pValues[index]))
        adjusted[index] = running
    }
    return adjusted
}
