import OfferLabVocabulary

/// An offering's own two compared metrics, by their `comparisons.csv` names: the daily series,
/// the slices and the report's verdicts are about these two. The statistics module's `Metric`
/// names every compared metric, the capped and matured ones too.
package enum OwnMetric: String, Sendable, CaseIterable {
    case conversion
    /// Net revenue per assigned user.
    case arpu

    /// The metric of the catalogue it is (its name is the raw value).
    package var metric: Metric {
        switch self {
        case .conversion: .conversion
        case .arpu: .arpu
        }
    }
}
