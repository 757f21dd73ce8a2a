/// Prices as exact integer micro-units (10⁻⁶ of the major currency unit: `7.99` is 7 990 000).
///
/// The text is a JSON number: `-?digits[.digits][(e|E)[+|-]digits]` (leading zeros are
/// accepted in a numeric string; the JSON grammar itself forbids them in a JSON number). It is
/// read exactly from its decimal digits, never through a `Double`; more than six decimals are
/// rounded to the nearest micro-unit, half to even. A magnitude above 10¹² major units
/// (`maximumMicros`) is rejected as absurd.
public enum Price {
    /// The largest magnitude accepted: 10¹² major units, in micro-units.
    public static let maximumMicros: Int64 = 1_000_000_000_000_000_000

    /// Parses a price; nil when the text is not a number or its magnitude is above the maximum.
    /// Negative prices parse (rejecting them is the caller's separate check).
    ///
    /// Complexity: O(n) in the length of the text, whatever its exponent.
    @inline(__always)
    public static func parseMicros(_ bytes: UnsafeRawBufferPointer) -> Int64? { parse(bytes, decimals: 6) }

    /// Parses a fee share (a number in [0, 1) as RevenueCat's `tax_percentage` gives it) in
    /// billionths (`LogRecord.wholeShare`), rounded as prices are; nil as `parseMicros`.
    public static func parseShare(_ bytes: UnsafeRawBufferPointer) -> Int64? { parse(bytes, decimals: 9) }

    /// The number in units of 10^−`decimals`, rounded half to even; nil when it is no number or
    /// its magnitude is above `maximumMicros` units.
    @inline(__always)
    static func parse(_ bytes: UnsafeRawBufferPointer, decimals: Int) -> Int64? {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return nil }
        let p = base.assumingMemoryBound(to: UInt8.self)
        var index = 0
        let negative = p[0] == 0x2D
        if negative { index = 1 }
        let integerStart = index
        while index < count, p[index] &- 0x30 < 10 { index += 1 }
        let integerEnd = index
        guard integerEnd > integerStart else { return nil }
        var fractionStart = index
        var fractionEnd = index
        if index < count, p[index] == 0x2E {
            index += 1
            fractionStart = index
            while index < count, p[index] &- 0x30 < 10 { index += 1 }
            fractionEnd = index
            guard fractionEnd > fractionStart else { return nil }
        }
        var exponent = 0
        if index < count, p[index] == 0x65 || p[index] == 0x45 {  // e E
            index += 1
            var exponentNegative = false
            if index < count, p[index] == 0x2B || p[index] == 0x2D {
                exponentNegative = p[index] == 0x2D
                index += 1
            }
            let exponentStart = index
            while index < count, p[index] &- 0x30 < 10 {
                // Saturate: beyond a billion the value is 0 or out of range anyway.
                if exponent < 1_000_000_000 { exponent = exponent * 10 + Int(p[index] &- 0x30) }
                index += 1
            }
            guard index > exponentStart else { return nil }
            if exponentNegative { exponent = -exponent }
        }
        guard index == count else { return nil }

        // Digit k (0-based over integer then fraction digits) weighs 10^(power) units.
        let integerCount = integerEnd - integerStart
        let totalDigits = integerCount + (fractionEnd - fractionStart)
        var accumulator: UInt64 = 0
        var roundingDigit: UInt8 = 0
        var sticky = false
        var lastPower = 0
        for k in 0..<totalDigits {
            let digit = k < integerCount ? p[integerStart + k] &- 0x30 : p[fractionStart + k - integerCount] &- 0x30
            let power = integerCount - 1 - k + exponent + decimals
            if power >= 0 {
                if accumulator == 0 && digit == 0 { continue }
                if power >= 19 { return nil }  // at least 10^19 micro-units
                accumulator = accumulator * 10 + UInt64(digit)  // < 10^19: fits
                lastPower = power
            } else if power == -1 {
                roundingDigit = digit
            } else if digit != 0 {
                sticky = true
            }
        }
        if accumulator > 0 && lastPower > 0 {
            for _ in 0..<lastPower {
                let (product, overflow) = accumulator.multipliedReportingOverflow(by: 10)
                guard !overflow else { return nil }
                accumulator = product
            }
        }
        if roundingDigit > 5 || (roundingDigit == 5 && (sticky || accumulator & 1 == 1)) {
            accumulator += 1
        }
        guard accumulator <= UInt64(maximumMicros) else { return nil }
        let magnitude = Int64(accumulator)
        return negative ? -magnitude : magnitude
    }

    /// Whether `bytes` follow the number grammar `-?digits[.digits][(e|E)[+|-]digits]`.
    public static func isNumber(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        @inline(__always) func digits() -> Bool {
            let start = index
            while index < count, bytes[index] &- 0x30 < 10 { index += 1 }
            return index > start
        }
        if index < count, bytes[index] == 0x2D { index += 1 }
        guard digits() else { return false }
        if index < count, bytes[index] == 0x2E {
            index += 1
            guard digits() else { return false }
        }
        if index < count, bytes[index] == 0x65 || bytes[index] == 0x45 {
            index += 1
            if index < count, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
            guard digits() else { return false }
        }
        return index == count
    }

    /// Parses a price; nil when the text is not a number or is out of range.
    public static func parseMicros(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { parseMicros(UnsafeRawBufferPointer($0)) }
    }
}
