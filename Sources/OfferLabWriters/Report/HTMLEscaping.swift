/// Text from the data (group names, product ids, paywall copy) is never markup: every such
/// string goes through `htmlEscaped` before it reaches the page, in element content and in
/// attribute values alike (quotes included), in HTML and in inline SVG.
extension String {
    /// `&`, `<`, `>`, `"` and `'` replaced by character references.
    var htmlEscaped: String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for character in unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
