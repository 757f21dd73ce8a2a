import OfferLabSupport

/// One key of the job file: its name, what a run uses without it, and one line of help.
public struct JobKey: Sendable {
    public let name: String
    /// What a run uses when the key is absent (as the README's table says it, Markdown and all);
    /// `required` for a key every job must have.
    public let defaultValue: String
    /// What the key is, for `offerlab run --help`.
    public let help: String
}

extension JobKey {
    /// Every key a job file may have, section by section (`Job.sections`), in the order the
    /// README's tables ("The job file") and `offerlab run --help` list them: the one list of them.
    /// `JobLoader` rejects any other key, the help is made from it, and a test holds the README's
    /// tables to it.
    public static let all = Job.sections.flatMap(\.keys)

    /// The known key nearest to `typed`, when it is close enough to be the one meant
    /// (`NearestName.among`: `as_off`, `asof`; `output_folder` is no typo of `output`).
    public static func nearest(to typed: String) -> String? { NearestName.among(all.map(\.name), to: typed) }

    /// The keys as `offerlab run --help` lists them: under each section's name (`[inputs]`), each
    /// key with its help and its default, in lines of at most 80 characters (the help's width
    /// when it is not on a terminal, where a longer line wraps to the left margin).
    public static var helpText: String {
        Job.sections.map { section in "[\(section.name)]\n" + help(section.keys) }.joined(separator: "\n")
    }

    private static func help(_ keys: [JobKey]) -> String {
        let column = 22
        let margin = String(repeating: " ", count: column)
        return keys.map { key in
            let name = "  " + key.name
            var text = name.count < column ? name.padding(toLength: column, withPad: " ", startingAt: 0) : name + "\n" + margin
            text += key.help
            let absent = key.defaultValue == "required" ? "(required)" : "(default: \(key.defaultValue.filter { $0 != "`" }))"
            let lastLine = text.split(separator: "\n").last ?? ""
            text += lastLine.count + 1 + absent.count <= 80 ? " " + absent : "\n" + margin + absent
            return text
        }.joined(separator: "\n")
    }
}
