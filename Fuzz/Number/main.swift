// Fuzz target `number`: prices (`Price`) and table values (`TableValue`).
//
// Checks: no crash; `Price.isNumber` follows the grammar `-?digits[.digits][(e|E)[+|-]digits]`;
// an exact micro-unit price is within rounding of the same text read as a `Double` and is
// rejected exactly when its magnitude is beyond 10¹² units; `TableValue.int64`, `double` and
// `bool` agree with `Int64(String)`, `Double(String)` and the words they accept.

func referenceIsNumber(_ text: [UInt8]) -> Bool {
    var index = 0
    func digits() -> Int {
        let start = index
        while index < text.count, text[index] >= 0x30, text[index] <= 0x39 { index += 1 }
        return index - start
    }
    func skip(_ c: Character) -> Bool {
        guard index < text.count, text[index] == c.asciiValue else { return false }
        index += 1
        return true
    }
    _ = skip("-")
    guard digits() > 0 else { return false }
    if skip("."), digits() == 0 { return false }
    if skip("e") || skip("E") {
        if !skip("+") { _ = skip("-") }
        guard digits() > 0 else { return false }
    }
    return index == text.count
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNumber(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = FuzzInput(data, size).rest
    let text = Array(bytes)
    let string = String(decoding: text, as: UTF8.self)
    let isNumber = Price.isNumber(bytes)
    require(isNumber == referenceIsNumber(text), "isNumber")

    let micros = Price.parseMicros(bytes)
    if isNumber, let double = Double(string) {
        let scaled = double * 1_000_000
        let maximum = Double(Price.maximumMicros)
        if let micros {
            require(abs(Double(micros) - scaled) <= 1 + abs(scaled) * 1e-15, "\(micros) micro-units for \(double)")
        }
        if abs(scaled) < maximum * (1 - 1e-12) { require(micros != nil, "\(double) rejected") }
        if abs(scaled) > maximum * (1 + 1e-12) { require(micros == nil, "\(double) accepted, beyond the maximum") }
        require(TableValue.double(bytes) == (double.isFinite ? double : nil), "TableValue.double")
    } else {
        require(micros == nil && TableValue.double(bytes) == nil, "not a number, yet read as one")
    }

    require(TableValue.int64(bytes) == (text.first == UInt8(ascii: "+") ? nil : Int64(string)), "TableValue.int64")
    let lowercase = text.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    let word = String(decoding: lowercase, as: UTF8.self)
    let expected: Bool? = word == "1" || word == "true" ? true : word == "0" || word == "false" ? false : nil
    require(TableValue.bool(bytes) == expected, "TableValue.bool")
    return 0
}
