import Foundation
import Testing

/// No function, initializer or subscript under Sources takes more than `limit` parameters
/// (issue 48): what belongs together travels as one value (a stage's settings, an estimate with
/// its interval, a row's part), so a call names a handful of things, not a dozen loose ones.
/// Declarations written in the code are counted; a struct's synthesized memberwise initializer
/// is not one.
@Suite struct ParameterCountTests {
    static let limit = 8

    @Test func noDeclarationTakesMoreThanTheLimit() throws {
        var over: [String] = []
        for (target, file, source) in try LayerTests.sourceFiles() {
            for declaration in Self.declarations(in: source) where declaration.parameters > Self.limit {
                over.append("Sources/\(target)/\(file):\(declaration.line): \(declaration.name) takes \(declaration.parameters)")
            }
        }
        #expect(over == [], "more than \(Self.limit) parameters; group those that belong together into a value")
    }

    @Test(arguments: [
        ("func f() {}", 0),
        ("func f(_ a: Int) {}", 1),
        ("public func f<T: Collection, U>(a: T, b: [U: (Int, Int)], c: Dictionary<String, Int>) {}", 3),
        ("init(\n    a: Int = max(1, 2),\n    b: String = \"(,)\",\n    c: [Int] = [1, 2, 3]\n) {}", 3),
        ("func f(work: @escaping @Sendable (Int, String) async throws -> [Int: Int], then: () -> Void) {}", 2),
        ("subscript(row: Int, column: Int) -> Int { 0 }", 2),
        ("init?(a: Int, b: Int = { (x: Int, y: Int) in x + y }(1, 2)) {}", 2),
        ("let row = Row.init(1, 2, 3, 4, 5, 6, 7, 8, 9, 10); self.init(a: 1)", -1),
        ("// func f(a: Int, b: Int)\nlet s = \"func g(a: Int)\"\nlet r = #\"func h(\"a\", b)\"#", -1),
        ("func f(a: Int = \"\\(g(1, 2))\".count, b: Bool = x < y) {}", 2),
        ("let t = \"\"\"\n    func g(a: Int, b: Int)\n    \"\"\"\nfunc f(a: Int) {}", 1),
    ])
    func countsParameters(source: String, count: Int) {
        #expect(Self.declarations(in: source).first?.parameters ?? -1 == count)
    }

    @Test func namesTheLineOfEachDeclaration() {
        let found = Self.declarations(
            in:
                "struct S {\n    init(a: Int) {}\n\n    func g(\n        a: Int\n    ) { func h() {} }\n}\nextension S.T {\n    class func k() {}\n}\nfunc m() {}"
        )
        #expect(found.map(\.name) == ["S.init", "S.g", "S.h", "S.T.k", "m"])
        #expect(found.map(\.line) == [2, 4, 6, 9, 11])
    }

    // MARK: The scan

    struct Declaration {
        /// Qualified by the type, or the extension, declaring it (`StoreEvent.init`).
        var name: String
        /// 1-based, of the keyword.
        var line: Int
        var parameters: Int
    }

    /// The `func`, `init` and `subscript` declarations of `source`, with their parameter counts.
    static func declarations(in source: String) -> [Declaration] {
        let code = Array(codeOnly(source).utf8)
        var found: [Declaration] = []
        var line = 1
        var braces = 0
        // The types and extensions the scan is in, with the brace depth of their bodies.
        var types: [(name: String, depth: Int)] = []
        var nextType: String?
        var index = 0
        while index < code.count {
            let byte = code[index]
            switch byte {
            case UInt8(ascii: "\n"): line += 1
            case UInt8(ascii: "{"):
                braces += 1
                if let name = nextType { types.append((name, braces)) }
                nextType = nil
            case UInt8(ascii: "}"):
                if types.last?.depth == braces { types.removeLast() }
                braces -= 1
            default: break
            }
            guard isIdentifier(byte), index == 0 || !isIdentifier(code[index - 1]) else {
                index += 1
                continue
            }
            let end = wordEnd(from: index, in: code)
            let word = String(decoding: code[index..<end], as: UTF8.self)
            // `.init(…)` and `self.init(…)` are calls, not declarations.
            let isMember = index > 0 && code[index - 1] == UInt8(ascii: ".")
            if !isMember, ["func", "init", "subscript"].contains(word),
                let (name, open) = nameAndOpening(after: end, keyword: word, in: code)
            {
                let qualified = (types.map(\.name) + [name]).joined(separator: ".")
                found.append(Declaration(name: qualified, line: line, parameters: parameterCount(openingAt: open, in: code)))
            } else if !isMember, ["struct", "class", "enum", "actor", "protocol", "extension"].contains(word) {
                // The type's name, when one follows (`class func` declares no type).
                var start = end
                while start < code.count, code[start] == UInt8(ascii: " ") { start += 1 }
                var nameEnd = start
                while nameEnd < code.count, isIdentifier(code[nameEnd]) || code[nameEnd] == UInt8(ascii: ".") { nameEnd += 1 }
                if start < code.count, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(code[start]) {
                    nextType = String(decoding: code[start..<nameEnd], as: UTF8.self)
                }
            }
            index = end
        }
        return found
    }

    static func wordEnd(from start: Int, in code: [UInt8]) -> Int {
        var end = start
        while end < code.count, isIdentifier(code[end]) { end += 1 }
        return end
    }

    /// The declaration's name and the index of its parameter list's `(`, after the keyword.
    static func nameAndOpening(after keyword: Int, keyword word: String, in code: [UInt8]) -> (String, Int)? {
        var index = keyword
        while index < code.count, code[index] == UInt8(ascii: " ") { index += 1 }
        var name = word
        if word == "func" {
            let start = index
            while index < code.count, !"(< \n".utf8.contains(code[index]) { index += 1 }
            name = String(decoding: code[start..<index], as: UTF8.self)
        } else if index < code.count, "?!".utf8.contains(code[index]) {
            index += 1
        }
        while index < code.count, code[index] == UInt8(ascii: " ") { index += 1 }
        if index < code.count, code[index] == UInt8(ascii: "<") {
            var depth = 0
            repeat {
                if code[index] == UInt8(ascii: "<") { depth += 1 }
                if code[index] == UInt8(ascii: ">"), code[index - 1] != UInt8(ascii: "-") { depth -= 1 }
                index += 1
            } while index < code.count && depth > 0
        }
        guard index < code.count, code[index] == UInt8(ascii: "(") else { return nil }
        return (name, index)
    }

    /// The parameters in the list opening at `open`: its top-level commas, inside no bracket
    /// and no generic argument clause (`Dictionary<String, Int>`).
    static func parameterCount(openingAt open: Int, in code: [UInt8]) -> Int {
        var depth = 0
        var angles = 0
        var parameters = 0
        var hasText = false
        var index = open + 1
        while index < code.count {
            let byte = code[index]
            switch byte {
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                if depth == 0 { return parameters + (hasText ? 1 : 0) }
                depth -= 1
            // A generic argument clause opens right after its type's name; `a < b` has a space.
            case UInt8(ascii: "<") where isIdentifier(code[index - 1]): angles += 1
            case UInt8(ascii: ">") where angles > 0 && code[index - 1] != UInt8(ascii: "-"): angles -= 1
            case UInt8(ascii: ",") where depth == 0 && angles == 0:
                parameters += 1
                hasText = false
                index += 1
                continue
            default: break
            }
            if !" \n\t".utf8.contains(byte) { hasText = true }
            index += 1
        }
        return parameters
    }

    static func isIdentifier(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte >= 0x80
    }

    /// `source` with its comments and the text of its string literals (plain, multi-line and raw,
    /// interpolations included) replaced by spaces, its line breaks kept: what is left is code.
    static func codeOnly(_ source: String) -> String {
        var scanner = CodeScanner(Array(source.utf8))
        scanner.code(until: nil)
        return String(decoding: scanner.output, as: UTF8.self)
    }

    struct CodeScanner {
        let input: [UInt8]
        var index = 0
        var output: [UInt8] = []

        init(_ input: [UInt8]) {
            self.input = input
            output.reserveCapacity(input.count)
        }

        func peek(_ offset: Int = 0) -> UInt8? { index + offset < input.count ? input[index + offset] : nil }

        /// Copies `count` bytes, or blanks them (line breaks kept).
        mutating func take(_ count: Int = 1, blank: Bool) {
            for _ in 0..<count where index < input.count {
                output.append(blank && input[index] != UInt8(ascii: "\n") ? UInt8(ascii: " ") : input[index])
                index += 1
            }
        }

        /// Code up to the `)` closing an interpolation (`closing`), or to the end.
        mutating func code(until closing: UInt8?) {
            var depth = 0
            while let byte = peek() {
                if byte == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "/") {
                    while let byte = peek(), byte != UInt8(ascii: "\n") { take(blank: true) }
                } else if byte == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "*") {
                    var nesting = 0
                    repeat {
                        if peek() == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "*") {
                            nesting += 1
                            take(2, blank: true)
                        } else if peek() == UInt8(ascii: "*"), peek(1) == UInt8(ascii: "/") {
                            nesting -= 1
                            take(2, blank: true)
                        } else {
                            take(blank: true)
                        }
                    } while nesting > 0 && peek() != nil
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "#") && startsRawString() {
                    string()
                } else {
                    if byte == UInt8(ascii: "(") { depth += 1 }
                    if byte == UInt8(ascii: ")") {
                        if depth == 0, closing != nil { return }
                        depth -= 1
                    }
                    take(blank: false)
                }
            }
        }

        func startsRawString() -> Bool {
            var offset = 0
            while peek(offset) == UInt8(ascii: "#") { offset += 1 }
            return peek(offset) == UInt8(ascii: "\"")
        }

        /// A string literal, blanked but for its quotes; an interpolation's code is blanked too.
        mutating func string() {
            var hashes = 0
            while peek() == UInt8(ascii: "#") {
                hashes += 1
                take(blank: false)
            }
            let multiline = peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"")
            let quotes = multiline ? 3 : 1
            take(quotes, blank: false)
            while let byte = peek() {
                if byte == UInt8(ascii: "\\"), (0..<hashes).allSatisfy({ peek(1 + $0) == UInt8(ascii: "#") }) {
                    take(1 + hashes, blank: true)
                    if peek() == UInt8(ascii: "(") {
                        take(blank: true)
                        let start = output.count
                        code(until: UInt8(ascii: ")"))
                        for position in start..<output.count where output[position] != UInt8(ascii: "\n") {
                            output[position] = UInt8(ascii: " ")
                        }
                        take(blank: true)
                    } else {
                        take(blank: true)
                    }
                } else if byte == UInt8(ascii: "\""), (0..<quotes).allSatisfy({ peek($0) == UInt8(ascii: "\"") }),
                    (0..<hashes).allSatisfy({ peek(quotes + $0) == UInt8(ascii: "#") })
                {
                    take(quotes + hashes, blank: false)
                    return
                } else {
                    take(blank: true)
                }
            }
        }
    }
}
