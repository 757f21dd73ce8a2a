import Foundation

/// Formats output tables as CSV: RFC 4180 (CRLF between records), header row, `.` decimal point, the shortest text
/// that reads back as the same double (a money amount rounded to the micro-unit first), `true`/`false`, an empty field for no value, and text
/// that a spreadsheet would run as a formula prefixed with `'`.
package enum CSVWriter {
    package static func csv(_ table: ResultTable) -> String {
        var output = table.columnNames.map(quoted).joined(separator: ",") + "\r\n"
        let types = table.columns.map(\.type)
        for row in table.rows {
            output += zip(row, types).map { field($1.written($0)) }.joined(separator: ",")
            output += "\r\n"
        }
        return output
    }

    static func field(_ value: ResultValue) -> String {
        switch value {
        case .text(let text): quoted(neutralised(text))
        case .integer(let integer): String(integer)
        case .real(let real): real.map(number) ?? ""
        case .bool(let bool): bool.map { $0 ? "true" : "false" } ?? ""
        }
    }

    /// The shortest decimal text that reads back as `value` (`3`, not `3.0`); empty if not finite.
    package static func number(_ value: Double) -> String {
        guard value.isFinite else { return "" }
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return String(value)
    }

    /// A leading `'` for text starting with `=`, `+`, `-`, `@`, a tab or a carriage return.
    static func neutralised(_ text: String) -> String {
        guard let first = text.utf8.first else { return text }
        switch first {
        case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D: return "'" + text
        default: return text
        }
    }

    /// Quoted as RFC 4180 wants it when it holds a comma, a quote or a line end (not neutralised).
    package static func quoted(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }) else {
            return text
        }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
