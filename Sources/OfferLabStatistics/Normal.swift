#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The standard normal distribution N(0, 1).
///
/// - `tails`, `cdf`, `survival`: W. J. Cody's rational Chebyshev approximations (ACM TOMS 715,
///   the algorithm of R's `pnorm`), with exp(−x²/2) split so that it keeps full relative
///   precision: both tails are exact to a few ulps down to the smallest double (x ≈ −38.4).
/// - `quantile`, `upperQuantile`: M. J. Wichura's AS 241 (PPND16), relative error ≈ 1e-16 for
///   every p in (0, 1) down to 1e-300.
public enum StandardNormal {
    /// P(Z ≤ x) and P(Z > x), each computed directly.
    public static func tails(_ x: Double) -> TailProbabilities {
        if x.isNaN { return .undefined }
        let y = abs(x)
        if y <= 0.674_489_75 {
            // Central range: Φ(x) = ½ + x·R(x²).
            let a = (
                2.235_252_035_460_683_928_7, 161.028_231_068_555_878_81, 1_067.689_485_460_370_958_2,
                18_154.981_253_343_561_249, 0.065_682_337_918_207_449_113
            )
            let b = (
                47.202_581_904_688_241_87, 976.098_551_737_776_693_22, 10_260.932_208_618_978_205,
                45_507.789_335_026_729_956
            )
            let z = y > 0x1p-53 ? x * x : 0
            var numerator = a.4 * z
            var denominator = z
            numerator = (numerator + a.0) * z
            denominator = (denominator + b.0) * z
            numerator = (numerator + a.1) * z
            denominator = (denominator + b.1) * z
            numerator = (numerator + a.2) * z
            denominator = (denominator + b.2) * z
            let half = x * (numerator + a.3) / (denominator + b.3)
            return TailProbabilities(lower: 0.5 + half, upper: 0.5 - half)
        }
        let tail: Double  // P(Z > y)
        if y <= 5.656_854_249_492_380_195_206_754_896_84 {
            // √32 ≥ y > 0.674: Q(y) = e^(−y²/2)·R(y).
            let c: [Double] = [
                0.398_941_512_088_134_667_64, 8.883_149_794_388_375_941_2, 93.506_656_132_177_855_979,
                597.270_276_394_800_262_26, 2_494.537_585_290_372_671_1, 6_848.190_450_536_282_332_6,
                11_602.651_437_647_350_124, 9_842.714_838_383_978_021_8, 1.076_557_677_372_019_231_7e-8,
            ]
            let d: [Double] = [
                22.266_688_044_328_115_691, 235.387_901_782_624_998_61, 1_519.377_599_407_554_805,
                6_485.558_298_266_760_755, 18_615.571_640_885_098_091, 34_900.952_721_145_977_266,
                38_912.003_286_093_271_411, 19_685.429_676_859_990_727,
            ]
            var numerator = c[8] * y
            var denominator = y
            for i in 0..<7 {
                numerator = (numerator + c[i]) * y
                denominator = (denominator + d[i]) * y
            }
            tail = exponentOfHalfSquare(y) * (numerator + c[7]) / (denominator + d[7])
        } else if y < 40 {
            // y > √32: Q(y) = e^(−y²/2)/y · (1/√(2π) − R(1/y²)/y²).
            let p: [Double] = [
                0.215_898_534_057_956_99, 0.127_401_161_160_247_363_9, 0.022_235_277_870_649_807,
                0.001_421_619_193_227_893_466, 2.911_287_495_116_879_2e-5, 0.023_073_441_764_940_173_03,
            ]
            let q: [Double] = [
                1.284_260_096_144_911_21, 0.468_238_212_480_865_118, 0.065_988_137_868_928_551_5,
                0.003_782_396_332_027_582_44, 7.297_515_550_839_662_05e-5,
            ]
            let z = 1 / (y * y)
            var numerator = p[5] * z
            var denominator = z
            for i in 0..<4 {
                numerator = (numerator + p[i]) * z
                denominator = (denominator + q[i]) * z
            }
            let r = z * (numerator + p[4]) / (denominator + q[4])
            tail = exponentOfHalfSquare(y) * (0.398_942_280_401_432_677_939_946_059_934 - r) / y
        } else {
            tail = 0  // below the smallest subnormal double
        }
        return x > 0 ? TailProbabilities(lower: 1 - tail, upper: tail) : TailProbabilities(lower: tail, upper: 1 - tail)
    }

    /// Φ(x) = P(Z ≤ x).
    public static func cdf(_ x: Double) -> Double { tails(x).lower }

    /// 1 − Φ(x) = P(Z > x), computed directly (not as 1 − Φ(x)).
    public static func survival(_ x: Double) -> Double { tails(x).upper }

    /// φ(x) = e^(−x²/2)/√(2π), with full relative precision in the tails.
    public static func density(_ x: Double) -> Double {
        if x.isNaN { return .nan }
        let y = abs(x)
        if y >= 40 { return 0 }
        return 0.398_942_280_401_432_677_939_946_059_934 * exponentOfHalfSquare(y)
    }

    /// e^(−y²/2) with y² split into an exactly representable part and a small remainder, so the
    /// rounding of y² does not turn into a relative error of y²·ε.
    private static func exponentOfHalfSquare(_ y: Double) -> Double {
        let head = (y * 16).rounded(.towardZero) / 16
        let remainder = (y - head) * (y + head)
        return exp(-head * head * 0.5) * exp(-remainder * 0.5)
    }

    /// Φ⁻¹(p): the z with P(Z ≤ z) = p. −∞ at 0, +∞ at 1, NaN outside [0, 1].
    ///
    /// For an upper-tail probability q that is tiny, call ``upperQuantile(_:)`` instead of
    /// `quantile(1 − q)`: 1 − q has already lost q's digits.
    public static func quantile(_ p: Double) -> Double {
        if p.isNaN || p < 0 || p > 1 { return .nan }
        if p == 0 { return -.infinity }
        if p == 1 { return .infinity }
        let q = p - 0.5
        if abs(q) <= 0.425 {
            let r = 0.180_625 - q * q
            let numerator =
                (((((((2_509.080_928_730_122_672_7 * r + 33_430.575_583_588_128_105) * r
                    + 67_265.770_927_008_700_853) * r + 45_921.953_931_549_871_457) * r
                    + 13_731.693_765_509_461_125) * r + 1_971.590_950_306_551_442_7) * r
                    + 133.141_667_891_784_377_45) * r + 3.387_132_872_796_366_608_0)
            let denominator =
                (((((((5_226.495_278_852_854_561_0 * r + 28_729.085_735_721_942_674) * r
                    + 39_307.895_800_092_710_610) * r + 21_213.794_301_586_595_867) * r
                    + 5_394.196_021_424_751_107_7) * r + 687.187_007_492_057_908_30) * r
                    + 42.313_330_701_600_911_252) * r + 1)
            return q * numerator / denominator
        }
        // Tails: r = √(−log(min(p, 1 − p))); 1 − p is exact here (p > 0.925).
        var r = (-log(q < 0 ? p : 1 - p)).squareRoot()
        let value: Double
        if r <= 5 {
            r -= 1.6
            let numerator =
                (((((((7.745_450_142_783_414_076_40e-4 * r + 0.022_723_844_989_269_184_583_3) * r
                    + 0.241_780_725_177_450_611_770) * r + 1.270_458_252_452_368_382_58) * r
                    + 3.647_848_324_763_204_605_04) * r + 5.769_497_221_460_691_405_50) * r
                    + 4.630_337_846_156_545_295_90) * r + 1.423_437_110_749_683_577_34)
            let denominator =
                (((((((1.050_750_071_644_416_843_24e-9 * r + 5.475_938_084_995_344_946_00e-4) * r
                    + 0.015_198_666_563_616_457_196_6) * r + 0.148_103_976_427_480_074_590) * r
                    + 0.689_767_334_985_100_004_550) * r + 1.676_384_830_183_803_849_40) * r
                    + 2.053_191_626_637_758_821_87) * r + 1)
            value = numerator / denominator
        } else {
            r -= 5
            let numerator =
                (((((((2.010_334_399_292_288_132_65e-7 * r + 2.711_555_568_743_487_578_15e-5) * r
                    + 0.001_242_660_947_388_078_438_60) * r + 0.026_532_189_526_576_123_093_0) * r
                    + 0.296_560_571_828_504_891_230) * r + 1.784_826_539_917_291_335_80) * r
                    + 5.463_784_911_164_114_369_90) * r + 6.657_904_643_501_103_777_20)
            let denominator =
                (((((((2.044_263_103_389_939_785_64e-15 * r + 1.421_511_758_316_445_888_70e-7) * r
                    + 1.846_318_317_510_054_681_80e-5) * r + 7.868_691_311_456_132_591_00e-4) * r
                    + 0.014_875_361_290_850_614_852_5) * r + 0.136_929_880_922_735_805_310) * r
                    + 0.599_832_206_555_887_937_690) * r + 1)
            value = numerator / denominator
        }
        return q < 0 ? -value : value
    }

    /// The z with P(Z > z) = q, computed without forming 1 − q (exact for q down to 1e-300).
    public static func upperQuantile(_ q: Double) -> Double {
        -quantile(q)
    }
}
