import Foundation
import OfferLabStoreSources
import OfferLabSupport
import Yams

/// The job file's values by key, typed on request, with errors naming the file and key: what
/// each section's reader reads.
struct JobValues {
    let path: String
    let values: [String: Node]
    /// The job file's folder, which relative paths are resolved against.
    let folder: String

    /// Reads the YAML file at `path`: a mapping of known keys (`JobKey.all`).
    init(readingFileAt path: String) throws {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw OfferLabError(
                .missingInput, "job file \(path): cannot read it (\(error.localizedDescription))", location: .init(path: path),
                cause: error)
        }
        // YAML indents with spaces only; Yams' own message for a tab does not say so.
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where line.prefix(while: { $0 == " " || $0 == "\t" }).contains("\t") {
            throw OfferLabError(
                .badJob, "job file \(path): line \(index + 1): a tab in the indentation; YAML indents with spaces",
                location: .init(path: path, line: index + 1))
        }
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else {
                throw OfferLabError.job(path, "it is empty")
            }
            root = node
        } catch let error as OfferLabError {
            throw error
        } catch {
            throw OfferLabError(
                .badJob, "job file \(path): not valid YAML: \(Self.yamlProblem(error))", location: .init(path: path), cause: error)
        }
        guard let mapping = root.mapping else {
            throw OfferLabError.job(path, "expected a mapping of keys (tables:, logs:, …)")
        }
        let known = Set(JobKey.all.map(\.name))
        var values: [String: Node] = [:]
        for (keyNode, value) in mapping {
            guard let key = keyNode.string else { throw OfferLabError.job(path, "a key is not text") }
            guard known.contains(key) else {
                let suggestion = JobKey.nearest(to: key).map { "; did you mean \($0)?" } ?? ""
                throw OfferLabError(
                    .badJob,
                    "job file \(path): unknown key '\(key)'\(suggestion) (known: \(JobKey.all.map(\.name).joined(separator: ", ")))",
                    location: .init(path: path, jobKey: key))
            }
            values[key] = value
        }
        self.path = path
        self.values = values
        folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    }

    /// A YAML error on one line: where, what, and what the parser was reading. (Yams's own
    /// description puts the problem after the position and a line break, with a snippet.)
    static func yamlProblem(_ error: Error) -> String {
        let (context, problem, mark): (YamlError.Context?, String, Mark)
        switch error as? YamlError {
        case .scanner(let c, let p, let m, _), .parser(let c, let p, let m, _), .composer(let c, let p, let m, _):
            (context, problem, mark) = (c, p, m)
        case .duplicatedKeysInMapping(let duplicates, let c):
            return "line \(c.mark.line), column \(c.mark.column): duplicate key(s) \(duplicates.sorted().joined(separator: ", "))"
        default:
            return String(describing: error).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        }
        let reading = context.map { " (\($0.text) at line \($0.mark.line), column \($0.mark.column))" } ?? ""
        return "line \(mark.line), column \(mark.column): \(problem)\(reading)"
    }

    /// "job file `path`: `key`: `problem`".
    func fail(_ key: String, _ problem: String, code: OfferLabError.Code = .badJob) -> OfferLabError {
        OfferLabError.job(path, key: key, problem, code: code)
    }

    /// A problem whose words name the key themselves: "job file `path`: `problem`".
    func fail(saying problem: String, key: String) -> OfferLabError {
        OfferLabError(.badJob, "job file \(path): \(problem)", location: .init(path: path, jobKey: key))
    }

    func missing(_ key: String) -> OfferLabError {
        OfferLabError(.badJob, "job file \(path): the key '\(key)' is missing", location: .init(path: path, jobKey: key))
    }

    func has(_ key: String) -> Bool { values[key] != nil }

    /// `path` made absolute against the job file's folder (`JobLoader.resolve`).
    func resolve(_ path: String) -> String { JobLoader.resolve(path, against: folder) }

    /// A glob made absolute against the job file's folder, whose name is taken literally.
    func resolveGlob(_ glob: String) -> String { JobLoader.resolve(glob, against: FileGlob.escaped(folder)) }

    func optionalText(_ key: String) throws -> String? {
        guard let node = values[key], node.null == nil else { return nil }
        guard let text = node.scalar?.string else { throw fail(key, "expected a single value") }
        return text
    }

    func requiredText(_ key: String) throws -> String {
        guard let text = try optionalText(key), !text.isEmpty else {
            throw missing(key)
        }
        return text
    }

    /// One text or a list of texts.
    func textList(_ key: String) throws -> [String] {
        guard let node = values[key] else { throw missing(key) }
        if let text = node.scalar?.string { return [text] }
        guard let sequence = node.sequence else { throw fail(key, "expected a text or a list of texts") }
        return try sequence.map { item in
            guard let text = item.scalar?.string, !text.isEmpty else { throw fail(key, "every item must be a text") }
            return text
        }
    }

    /// `logs` (or `history_logs`, of the same forms): one glob or a list, each item a glob (the
    /// purchase-log format, docs/input-formats.md#purchase-logs) or `{path: glob, format: name}`
    /// (docs/input-formats.md#store-sources-in-a-job); nil when the key is absent.
    func logItems(_ key: String) throws -> [(glob: String, format: SourceFormat)]? {
        guard let node = values[key] else { return nil }
        if let text = node.scalar?.string { return [(text, .offerlab)] }
        guard let sequence = node.sequence else { throw fail(key, "expected a glob or a list of globs") }
        let form = "every item must be a glob, or {path: glob, format: name}"
        return try sequence.map { item in
            if let text = item.scalar?.string, !text.isEmpty { return (text, .offerlab) }
            guard let mapping = item.mapping else { throw fail(key, form) }
            var glob: String?
            var format = SourceFormat.offerlab
            for (keyNode, valueNode) in mapping {
                let text = valueNode.scalar?.string ?? ""
                switch keyNode.string {
                case "path" where !text.isEmpty: glob = text
                case "format":
                    guard let named = SourceFormat(rawValue: text) else {
                        let known = SourceFormat.allCases.map(\.rawValue).joined(separator: ", ")
                        throw fail(key, "unknown format '\(text)' (known: \(known))")
                    }
                    format = named
                default: throw fail(key, form)
                }
            }
            guard let glob else { throw fail(key, form) }
            return (glob, format)
        }
    }

    func optionalNumber(_ key: String) throws -> Double? {
        guard let text = try optionalText(key) else { return nil }
        guard let number = Double(text), number.isFinite else { throw fail(key, "'\(text)' is not a number") }
        return number
    }

    func number(_ key: String, default defaultValue: Double) throws -> Double {
        try optionalNumber(key) ?? defaultValue
    }

    /// `true` or `false`; false when absent.
    func flag(_ key: String) throws -> Bool {
        guard let text = try optionalText(key) else { return false }
        switch text {
        case "true": return true
        case "false": return false
        default: throw fail(key, "'\(text)' must be true or false")
        }
    }
}
