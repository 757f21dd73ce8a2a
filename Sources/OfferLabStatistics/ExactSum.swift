/// The exact sum of doubles, rounded once: its value is the double nearest to the true sum of
/// every value added (ties to even), whatever the order of the additions and however they were
/// split between sums that were then merged. So a total added up user by user and the same
/// total added up as day-by-day changes (each change a value added and another subtracted) are
/// the same double, to the last bit, and so are the sums of any split of the users between
/// threads.
///
/// Every finite double is an integer multiple of 2⁻¹⁰⁷⁴ (the smallest subnormal), so the sum is
/// kept as that integer, in two's complement, in 34 limbs of 64 bits: enough for 2⁶³ values of
/// the largest magnitude. Infinities and NaNs are counted apart (a value subtracted cancels the
/// same value added), so that a sum of finite values stays exact.
public struct ExactSum: Sendable {
    /// Bit 0 of limb 0 is worth 2⁻¹⁰⁷⁴; the last limb's top bit is the sign.
    private var limbs = InlineArray<34, UInt64>(repeating: 0)
    /// How many times +∞, −∞ and NaN were added, less how many times they were subtracted.
    private var positiveInfinities = 0
    private var negativeInfinities = 0
    private var notANumbers = 0

    public init() {}

    // Most values added are 0 (users without money): inlined, they cost no call.
    @inlinable
    public mutating func add(_ value: Double) {
        if value != 0 { add(value, negated: false) }
    }

    @inlinable
    public mutating func subtract(_ value: Double) {
        if value != 0 { add(value, negated: true) }
    }

    /// Adds everything `other` holds.
    public mutating func add(_ other: ExactSum) {
        var carry = false
        for index in limbs.indices {
            let (partial, first) = limbs[index].addingReportingOverflow(other.limbs[index])
            let (sum, second) = partial.addingReportingOverflow(carry ? 1 : 0)
            limbs[index] = sum
            carry = first || second
        }
        positiveInfinities += other.positiveInfinities
        negativeInfinities += other.negativeInfinities
        notANumbers += other.notANumbers
    }

    /// The sum, rounded to the nearest double (ties to even; +0 when it is 0). Infinities added
    /// give their infinity, both infinities or a NaN give NaN; a finite sum beyond the largest
    /// double gives an infinity.
    public var value: Double {
        if notANumbers != 0 || (positiveInfinities != 0 && negativeInfinities != 0) { return .nan }
        if positiveInfinities != 0 { return positiveInfinities > 0 ? .infinity : -.infinity }
        if negativeInfinities != 0 { return negativeInfinities > 0 ? -.infinity : .infinity }
        let negative = limbs[limbs.count - 1] >> 63 == 1
        var magnitude = limbs
        if negative { Self.negate(&magnitude) }
        var top = limbs.count - 1
        while magnitude[top] == 0 {
            if top == 0 { return 0 }
            top -= 1
        }
        let highestBit = top * 64 + 63 - magnitude[top].leadingZeroBitCount
        let sign: FloatingPointSign = negative ? .minus : .plus
        // Below 2⁶⁴ units the integer converts with one rounding, and the scaling is exact: the
        // result is exact where it is subnormal (under 2⁵³ units), normal otherwise.
        guard highestBit >= 64 else { return Double(sign: sign, exponent: -1074, significand: Double(magnitude[0])) }
        // The 64 bits from the highest set bit down, and a bit set at their bottom when anything
        // below them is not 0: converting them then rounds as the whole integer would (the
        // rounding happens 11 bits up, so the extra bit only breaks what would look like a tie).
        let lowestBit = highestBit - 63
        let limb = lowestBit >> 6
        let shift = lowestBit & 63
        var leading = shift == 0 ? magnitude[limb] : magnitude[limb] >> shift | magnitude[limb + 1] << (64 - shift)
        var below = shift == 0 ? 0 : magnitude[limb] << (64 - shift)
        for index in 0..<limb { below |= magnitude[index] }
        if below != 0 { leading |= 1 }
        return Double(sign: sign, exponent: lowestBit - 1074, significand: Double(leading))
    }

    @usableFromInline
    mutating func add(_ value: Double, negated: Bool) {
        let count = negated ? -1 : 1
        guard value.isFinite else {
            if value.isNaN {
                notANumbers += count
            } else if value > 0 {
                positiveInfinities += count
            } else {
                negativeInfinities += count
            }
            return
        }
        let biasedExponent = Int(value.exponentBitPattern)
        let significand = biasedExponent == 0 ? value.significandBitPattern : value.significandBitPattern | 1 << 52
        guard significand != 0 else { return }
        // value = significand · 2^(biasedExponent − 1075), and a subnormal's biased exponent
        // is 0 but counts as 1.
        let position = max(biasedExponent, 1) - 1
        let limb = position >> 6
        let shift = position & 63
        let low = significand << shift
        let high = shift == 0 ? 0 : significand >> (64 - shift)
        if (value.sign == .minus) != negated {
            apply(low: low, high: high, at: limb) { $0.subtractingReportingOverflow($1) }
        } else {
            apply(low: low, high: high, at: limb) { $0.addingReportingOverflow($1) }
        }
    }

    /// Adds (`operation` is addition with its carry) or subtracts (subtraction with its borrow)
    /// `high · 2⁶⁴ + low` at `limb`, the carry or borrow going up as far as it must.
    private mutating func apply(
        low: UInt64, high: UInt64, at limb: Int, _ operation: (UInt64, UInt64) -> (partialValue: UInt64, overflow: Bool)
    ) {
        let (first, carryLow) = operation(limbs[limb], low)
        limbs[limb] = first
        let (partial, carryHigh) = operation(limbs[limb + 1], high)
        let (second, carryBoth) = operation(partial, carryLow ? 1 : 0)
        limbs[limb + 1] = second
        var carry = carryHigh || carryBoth
        var index = limb + 2
        while carry && index < limbs.count {
            (limbs[index], carry) = operation(limbs[index], 1)
            index += 1
        }
    }

    /// Two's complement: every bit flipped, plus one.
    private static func negate(_ limbs: inout InlineArray<34, UInt64>) {
        var carry = true
        for index in limbs.indices {
            (limbs[index], carry) = (~limbs[index]).addingReportingOverflow(carry ? 1 : 0)
        }
    }
}
