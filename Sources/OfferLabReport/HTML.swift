/// Markup for the page, escaped by construction: text from the data (group names, product ids,
/// paywall copy) can reach the page only as an interpolation, which escapes it.
///
/// In a literal, the literal segments are markup and every interpolated value is text: a
/// `String` (or a number) is escaped, `&`, `<`, `>`, `"` and `'` replaced by character
/// references, so it is safe in element content and in attribute values alike, in HTML and in
/// inline SVG; an interpolated `HTML` goes in as it is.
struct HTML: Sendable, ExpressibleByStringInterpolation {
    /// The markup, ready for the page.
    private(set) var markup: String

    /// Markup as it is, unescaped: only for markup the report itself holds (its stylesheet),
    /// never for text from the data.
    init(markup: String) {
        self.markup = markup
    }

    init(stringLiteral markup: String) {
        self.markup = markup
    }

    init(stringInterpolation: StringInterpolation) {
        markup = stringInterpolation.markup
    }

    struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var markup = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            markup.reserveCapacity(literalCapacity)
        }

        mutating func appendLiteral(_ literal: String) {
            markup += literal
        }

        mutating func appendInterpolation(_ html: HTML) {
            markup += html.markup
        }

        mutating func appendInterpolation(_ text: some CustomStringConvertible) {
            HTML.escape(text.description, into: &markup)
        }
    }

    static func + (lhs: HTML, rhs: HTML) -> HTML {
        HTML(markup: lhs.markup + rhs.markup)
    }

    static func += (lhs: inout HTML, rhs: HTML) {
        lhs.markup += rhs.markup
    }

    /// `text` appended to `markup` with `&`, `<`, `>`, `"` and `'` replaced by character references.
    private static func escape(_ text: String, into markup: inout String) {
        for character in text.unicodeScalars {
            switch character {
            case "&": markup += "&amp;"
            case "<": markup += "&lt;"
            case ">": markup += "&gt;"
            case "\"": markup += "&quot;"
            case "'": markup += "&#39;"
            default: markup.unicodeScalars.append(character)
            }
        }
    }
}

extension Sequence<HTML> {
    /// The elements one after another, `separator` between each two.
    func joined(separator: HTML = "") -> HTML {
        var result: HTML = ""
        for (index, element) in enumerated() {
            if index > 0 { result += separator }
            result += element
        }
        return result
    }
}
