import ArgumentParser
import OfferLabJob
import OfferLabSupport

/// A group of options that changes the job file's values.
protocol JobOverriding {
    func override(_ overrides: inout JobOverrides) throws
}

/// The job argument and `--as-of`, declared once for every command that reads a job; `load`
/// makes the command's validated `Job` with every override of its groups in it.
struct JobOptions: ParsableArguments {
    @Argument(help: "The job file (YAML).")
    var job: String

    @Option(
        name: .customLong("as-of"), help: ArgumentHelp("Override the job's as_of (2026-03-16 or 2026-03-16T00:00:00Z).", valueName: "date"),
        transform: Night.argument)
    var asOf: Night?

    /// The job, with `--as-of` and the overrides of `groups`.
    /// - Throws: `OfferLabError` for a bad job file; `ValidationError` for an inflater that cannot be used.
    func load(_ groups: any JobOverriding...) throws -> Job {
        var overrides = JobOverrides(asOf: asOf)
        for group in groups { try group.override(&overrides) }
        return try JobLoader.load(path: job, overriding: overrides)
    }
}

extension Night {
    /// `--as-of` as every command reads it, checked while the arguments are parsed (a bad value
    /// is a bad command line, exit 64).
    @Sendable static func argument(_ text: String) throws -> Night {
        guard let night = Night(parsing: text) else {
            throw ValidationError("not a date like 2026-03-16 or a timestamp like 2026-03-16T00:00:00Z")
        }
        return night
    }
}

/// How a command reads the job's inputs: the parsed-log cache and the gzip library.
struct InputOptions: ParsableArguments, JobOverriding {
    @Flag(name: .customLong("no-cache"), help: "Parse every input file, neither reading nor writing the job's cache folder.")
    var noCache = false

    @OptionGroup var inflaterOptions: InflaterOptions

    func override(_ overrides: inout JobOverrides) throws {
        overrides.ignoresCache = noCache
        try inflaterOptions.override(&overrides)
    }
}
