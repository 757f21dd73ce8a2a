import Foundation
import OfferLabStatistics
import Testing

@Suite("The sequential sample-ratio Bayes factor against scipy's log-gamma")
struct SequentialSampleRatioTests {
    struct Case: CustomStringConvertible, Sendable {
        var users: [Int]
        var weights: [Double]
        var concentration: Double
        var logBayesFactor: Double
        var pValue: Double
        var description: String { "\(users) \(weights) c=\(concentration)" }
    }

    /// sequential_srm.csv: groups' users and weights `;`-separated.
    static let cases: [Case] = {
        guard let text = try? String(contentsOf: Reference.url("sequential_srm.csv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: ",").map(String.init)
            guard fields.count == 5, let c = Double(fields[2]), let bf = Double(fields[3]), let p = Double(fields[4]) else { return nil }
            return Case(
                users: fields[0].split(separator: ";").compactMap { Int($0) },
                weights: fields[1].split(separator: ";").compactMap { Double($0) },
                concentration: c, logBayesFactor: bf, pValue: p)
        }
    }()

    @Test("The reference is read whole")
    func fileIsComplete() {
        #expect(Self.cases.count == 52)
    }

    @Test("ln BF and the p-value", arguments: cases)
    func bayesFactor(_ reference: Case) throws {
        let value = try #require(
            SequentialSampleRatio.logBayesFactor(users: reference.users, weights: reference.weights, concentration: reference.concentration)
        )
        // ln Γ of arguments up to 3·10⁶ (about 4·10⁷) carries ulps of 10⁻⁸ into the difference.
        let n = Double(reference.users.reduce(0, +))
        let allowed = 1e-12 * max(1, n * log(n + 1))
        #expect(abs(value - reference.logBayesFactor) <= allowed, "\(reference): \(value)")
        // p = e^(−ln BF): the same error, relative.
        let p = SequentialSampleRatio.pValue(logBayesFactor: value)
        #expect(abs(p - reference.pValue) <= (expm1(allowed) + 1e-15) * reference.pValue, "\(reference): p \(p)")
    }

    @Test("Users where none were promised is infinite evidence; no users, no factor")
    func corners() {
        #expect(SequentialSampleRatio.logBayesFactor(users: [10, 1], weights: [1, 0], concentration: 100) == .infinity)
        #expect(SequentialSampleRatio.pValue(logBayesFactor: .infinity) == 0)
        #expect(SequentialSampleRatio.logBayesFactor(users: [0, 0], weights: [1, 1], concentration: 100) == nil)
        #expect(SequentialSampleRatio.logBayesFactor(users: [3, 4], weights: [0, 0], concentration: 100) == nil)
    }
}
