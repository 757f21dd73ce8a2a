import OfferLabStatistics
import OfferLabVocabulary

/// The job's estimators section: the statistics' own settings (docs/statistics.md).
public struct JobEstimators: Sendable {
    public var alpha = 0.05
    /// N* of the sequential intervals (docs/statistics.md, Sequential): the total users of two groups at which they are tightest.
    public var sequentialTuning = SequentialInference.defaultTuning
    /// `decision`: which inference the report's verdicts use.
    public var inference = Decision.sequential
    /// c of the always-valid sample-ratio check's Dirichlet mixture (docs/statistics.md, "Sequential sample ratio").
    public var srmConcentration = SequentialSampleRatio.defaultConcentration

    static let keys = [
        JobKey(name: "alpha", defaultValue: "0.05", help: "significance level"),
        JobKey(
            name: "sequential_tuning", defaultValue: "\(Int(SequentialInference.defaultTuning))",
            help: "N* of the sequential intervals: users to decide at"),
        JobKey(
            name: "decision", defaultValue: "`sequential`",
            help: "sequential or fixed: the inference of the verdicts"),
        JobKey(
            name: "srm_concentration", defaultValue: "100",
            help: "c of the always-valid sample-ratio check"),
    ]
}

extension JobEstimators {
    init(_ reader: JobValues) throws {
        alpha = try reader.number("alpha", default: alpha)
        guard alpha > 0 && alpha < 1 else {
            throw reader.fail("alpha", "\(alpha) must be greater than 0 and less than 1")
        }
        sequentialTuning = try reader.number("sequential_tuning", default: sequentialTuning)
        guard sequentialTuning > 0 else {
            throw reader.fail("sequential_tuning", "\(sequentialTuning) must be a positive number of users")
        }
        let decisionText = try reader.optionalText("decision") ?? inference.rawValue
        guard let inference = Decision(rawValue: decisionText) else {
            throw reader.fail("decision", "'\(decisionText)' must be sequential or fixed")
        }
        self.inference = inference
        srmConcentration = try reader.number("srm_concentration", default: srmConcentration)
        guard srmConcentration > 0, srmConcentration.isFinite else {
            throw reader.fail("srm_concentration", "\(srmConcentration) must be a positive number, like 100")
        }
    }
}
