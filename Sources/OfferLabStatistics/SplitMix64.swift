/// A small, fast, seedable pseudo-random generator (SplitMix64, Steele, Lea and Flood, 2014).
///
/// Every draw is integer arithmetic or an IEEE `Double` product, so a seed gives the same
/// numbers on every platform and every Swift version (no `SystemRandomNumberGenerator`, no
/// standard-library `random(in:)`, whose algorithm is not promised to stay the same). Public and
/// here, in the layer every other may use: the generator of data sets draws from it, `offerlab
/// run` seeds the projection's intervals with it (docs/statistics.md), and the tests and
/// benchmarks draw their data from it.
public struct SplitMix64: RandomNumberGenerator {
    public private(set) var state: UInt64

    public init(state: UInt64) {
        self.state = state
    }

    /// The generator of one stream (a user, a table, a file): `seed` and `stream` are mixed so
    /// that neighbouring streams (user 7 and user 8) share no draws.
    public init(seed: UInt64, stream: UInt64) {
        state = Self.mix(seed ^ Self.mix(stream &+ 0x632B_E59B_D9B4_E019))
    }

    /// The SplitMix64 finaliser: a bijection on 64 bits that spreads every input bit.
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// A uniform `Double` in [0, 1), 53 random bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// A uniform integer in `0..<count` (`count` > 0), by the multiply-high method.
    public mutating func below(_ count: Int) -> Int {
        Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(count)).high)
    }

    /// A uniform integer in `lower..<upper` (`upper` > `lower`).
    public mutating func between(_ lower: Int64, _ upper: Int64) -> Int64 {
        lower + Int64(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(upper - lower)).high)
    }

    /// True with probability `probability`.
    public mutating func chance(_ probability: Double) -> Bool {
        unit() < probability
    }

    /// An index drawn with the given (not necessarily normalised) weights.
    public mutating func pick(weights: [Double]) -> Int {
        var total = 0.0
        for weight in weights { total += weight }
        var target = unit() * total
        for (index, weight) in weights.enumerated() {
            if target < weight { return index }
            target -= weight
        }
        return weights.count - 1
    }
}
