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

    @Option(name: .customLong("as-of"), help: "Override the job's as_of (2026-03-16 or 2026-03-16T00:00:00Z).")
    var asOf: String?

    func validate() throws {
        if let asOf, Night(parsing: asOf) == nil {
            throw ValidationError("--as-of '\(asOf)' is not a date like 2026-03-16 or a timestamp like 2026-03-16T00:00:00Z")
        }
    }

    /// The job, with `--as-of` and the overrides of `groups`.
    /// - Throws: `OfferLabError` for a bad job file; `ValidationError` for an inflater that cannot be used.
    func load(_ groups: any JobOverriding...) throws -> Job {
        var overrides = JobOverrides(asOf: asOf)
        for group in groups { try group.override(&overrides) }
        return try JobLoader.load(path: job, overriding: overrides)
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
