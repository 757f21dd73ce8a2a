import ArgumentParser
import OfferLab
import OfferLabGenerate

/// `offerlab generate`: writes a synthetic, deterministic data set (tables, logs, job file).
struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Writes a synthetic, deterministic data set: offering tables, purchase logs and a job file.",
        discussion: """
            The same options give byte-identical files. The folder receives tables/, logs/YYYY/MM/DD/ \
            and job.yaml; run it with `offerlab run DIR/job.yaml`.
            """
    )

    @Option(name: .long, help: ArgumentHelp("The folder to write into.", valueName: "dir"))
    var out: String

    @Option(name: .long, help: ArgumentHelp("Number of simulated users (1M users ≈ 1 GB of JSON).", valueName: "n"))
    var users: Int

    @Option(name: .long, help: ArgumentHelp("Seed of the random streams.", valueName: "s"))
    var seed: UInt64

    @Option(name: .long, help: ArgumentHelp("First UTC day of the period (YYYY-MM-DD).", valueName: "date"))
    var start: String = GeneratorConfiguration.defaultStart.description

    @Option(name: .long, help: ArgumentHelp("Days in the period; as_of is start + days.", valueName: "d"))
    var days: Int = 14

    @Option(name: .long, help: ArgumentHelp("Worker threads (the files do not depend on it).", valueName: "n"))
    var jobs: Int = 2

    @Flag(name: .long, help: "Replace tables/, logs/ and job.yaml left in the folder by an earlier run.")
    var force = false

    func run() async throws {
        guard let startDate = CivilDate(parsing: start) else {
            throw ValidationError("--start must be a date like 2026-03-01 (got '\(start)')")
        }
        let configuration = GeneratorConfiguration(
            outputDirectory: out, users: users, seed: seed, start: startDate, days: days, jobs: jobs, overwrite: force)
        do {
            try configuration.validate()
        } catch let error as GeneratorError {
            throw ValidationError(error.description)
        }
        // A folder that already holds a data set, or files that cannot be written: the
        // outputs cannot be written (73), in the same one-line form as every other command.
        let report = try await runReportingErrors {
            do {
                return try DataSetGenerator.generate(configuration)
            } catch let error as GeneratorError {
                throw OfferLabError(.output, error.description)
            }
        }
        func megabytes(_ bytes: Int64) -> String {
            let tenths = (bytes + 50_000) / 100_000
            return "\(tenths / 10).\(tenths % 10) MB"
        }
        let size = "\(megabytes(report.totalBytes)); logs \(megabytes(report.logs.uncompressedBytes)) uncompressed"
        let otherFiles = report.files.count - report.logs.files
        print("Wrote \(report.users) users, \(report.assignmentRows) assignment rows and \(report.logs.lines) log lines")
        print("  in \(report.logs.files) log files + \(otherFiles) other files (\(size)) to \(report.outputDirectory)/")
        print("Job file: \(report.jobFile) (as_of \(report.asOf))")
    }
}
