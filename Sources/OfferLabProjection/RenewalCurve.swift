#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The shifted-beta-geometric renewal curve (Fader and Hardie, 2007): each subscriber churns at
/// each due date with its own probability θ, and θ varies between subscribers as Beta(a, b).
/// The renewal probability of renewal k (k ≥ 1, given renewal k − 1) is then
/// (b + k − 1)/(a + b + k − 1): it rises with the subscription's age, because the subscribers
/// likely to churn leave first. Written here with s = a + b and the mean churn m = a/s:
/// r(k) = 1 − m·s/(s + k − 1); s → ∞ is a constant r = 1 − m (no heterogeneity).
struct RenewalCurve: Sendable, Equatable {
    /// The mean churn at the first renewal, 1 − r(1).
    var meanChurn: Double
    /// a + b: small when subscribers differ a lot, large when they are alike.
    var concentration: Double

    /// r(k), k ≥ 1.
    func renewalProbability(_ index: Int) -> Double {
        1 - meanChurn * concentration / (concentration + Double(index - 1))
    }

    /// The maximum-likelihood curve for `atRisk[k]` renewals due and `renewed[k]` made (k ≥ 1;
    /// slot 0 ignored): for each concentration the log-likelihood is concave in the mean churn
    /// (whose score is monotone: safeguarded Newton), and the profile is maximised over log s by golden
    /// section on [−3, 14] (s from 0.05, strongly mixed, to 1.2 million, which is a constant
    /// rate for any horizon of a year). Cost: about 250 passes over the indices.
    static func fitted(atRisk: [Int], renewed: [Double]) -> RenewalCurve {
        var lapsedTotal = 0.0
        var renewedTotal = 0.0
        for index in atRisk.indices.dropFirst() {
            renewedTotal += renewed[index]
            lapsedTotal += Double(atRisk[index]) - renewed[index]
        }
        if lapsedTotal <= 0 { return RenewalCurve(meanChurn: 0, concentration: 1) }
        if renewedTotal <= 0 { return RenewalCurve(meanChurn: 1, concentration: 1) }

        var churn = 0.5
        func bestChurn(concentration s: Double) -> Double {
            // Score: lapsed/m − Σ x_k c_k/(1 − c_k m), c_k = s/(s + k − 1) ≤ 1, decreasing in m
            // on (0, 1): Newton from the last root, kept inside the bracket by bisection.
            var low = 0.0
            var high = 1.0
            for _ in 0..<60 {
                var score = lapsedTotal / churn
                var slope = -lapsedTotal / (churn * churn)
                for index in atRisk.indices.dropFirst() where atRisk[index] > 0 {
                    let c = s / (s + Double(index - 1))
                    let rest = 1 / (1 - c * churn)
                    score -= renewed[index] * c * rest
                    slope -= renewed[index] * c * c * rest * rest
                }
                if score > 0 { low = churn } else { high = churn }
                var next = churn - score / slope
                if !(next > low && next < high) { next = (low + high) / 2 }
                if abs(next - churn) <= 1e-13 * churn || high - low <= 1e-15 {
                    churn = next
                    break
                }
                churn = next
            }
            return churn
        }
        func logLikelihood(logConcentration u: Double) -> (Double, RenewalCurve) {
            let s = exp(u)
            let m = bestChurn(concentration: s)
            var total = 0.0
            for index in atRisk.indices.dropFirst() where atRisk[index] > 0 {
                let c = s / (s + Double(index - 1))
                let lapsed = Double(atRisk[index]) - renewed[index]
                total += renewed[index] * log(max(1 - c * m, 1e-300)) + lapsed * log(max(c * m, 1e-300))
            }
            return (total, RenewalCurve(meanChurn: m, concentration: s))
        }
        let ratio = (5.0.squareRoot() - 1) / 2
        var low = -3.0
        var high = 14.0
        var left = high - ratio * (high - low)
        var right = low + ratio * (high - low)
        var leftValue = logLikelihood(logConcentration: left)
        var rightValue = logLikelihood(logConcentration: right)
        for _ in 0..<32 {
            if leftValue.0 < rightValue.0 {
                low = left
                left = right
                leftValue = rightValue
                right = low + ratio * (high - low)
                rightValue = logLikelihood(logConcentration: right)
            } else {
                high = right
                right = left
                rightValue = leftValue
                left = high - ratio * (high - low)
                leftValue = logLikelihood(logConcentration: left)
            }
        }
        return leftValue.0 < rightValue.0 ? rightValue.1 : leftValue.1
    }
}
