import OfferLabStatistics
import Testing

@Suite("Chance to beat control")
struct ChanceToBeatControlTests {
    @Test("Conversion: exact to 1e-8 against mpmath's exact finite sums, up to 10⁸ users and 5·10⁶ converters")
    func reference() throws {
        let rows = try Reference.rows("chance_to_beat.csv")
        #expect(rows.count >= 20)
        for row in rows {
            let value = conversionChanceToBeatControl(
                controlConverters: Int(row["control_converters"]), controlUsers: Int(row["control_users"]),
                treatmentConverters: Int(row["treatment_converters"]), treatmentUsers: Int(row["treatment_users"]))
            #expect(abs(value - row["probability"]) <= 1e-8, "\(row) got \(value)")
        }
    }

    @Test(
        "Swapping the groups gives 1 − P",
        arguments: [(3, 10, 5, 12), (500, 10_000, 560, 10_000), (0, 100, 1, 100), (999_000, 1_000_000, 999_100, 1_000_000)])
    func swap(_ values: (Int, Int, Int, Int)) {
        let (xt, nt, xc, nc) = values
        let forward = conversionChanceToBeatControl(controlConverters: xc, controlUsers: nc, treatmentConverters: xt, treatmentUsers: nt)
        let backward = conversionChanceToBeatControl(controlConverters: xt, controlUsers: nt, treatmentConverters: xc, treatmentUsers: nc)
        #expect(abs(forward + backward - 1) <= 1e-10)
    }

    @Test("Identical groups: ½")
    func identical() {
        for (x, n) in [(0, 1), (7, 10), (50_000, 1_000_000), (3_000_000, 100_000_000)] {
            let value = conversionChanceToBeatControl(controlConverters: x, controlUsers: n, treatmentConverters: x, treatmentUsers: n)
            #expect(abs(value - 0.5) <= 1e-10, "\(x)/\(n)")
        }
    }

    @Test("Increases with the treatment's converters")
    func monotone() {
        var previous = -1.0
        for x in stride(from: 400, through: 700, by: 20) {
            let value = conversionChanceToBeatControl(
                controlConverters: 500, controlUsers: 10_000, treatmentConverters: x, treatmentUsers: 10_000)
            #expect(value > previous)
            previous = value
        }
    }

    @Test("Fast for 10⁶ converters")
    func fast() {
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            _ = conversionChanceToBeatControl(
                controlConverters: 1_000_000, controlUsers: 10_000_000, treatmentConverters: 1_001_000, treatmentUsers: 10_000_000)
        }
        #expect(elapsed < .seconds(1), "took \(elapsed)")
    }

    @Test("ARPU: Φ(difference/se); nil without variance or with fewer than 2 users")
    func revenue() throws {
        let control = SampleMoments(count: 100, mean: 1, variance: 4)
        let treatment = SampleMoments(count: 100, mean: 1.5, variance: 4)
        let value = try #require(meanChanceToBeatControl(control: control, treatment: treatment))
        #expect(abs(value - StandardNormal.cdf(0.5 / (0.08).squareRoot())) <= 1e-15)
        #expect(
            meanChanceToBeatControl(
                control: SampleMoments(count: 5, mean: 1, variance: 0), treatment: SampleMoments(count: 5, mean: 2, variance: 0)) == nil)
        #expect(meanChanceToBeatControl(control: SampleMoments(count: 1, mean: 1, variance: 0), treatment: treatment) == nil)
    }
}
