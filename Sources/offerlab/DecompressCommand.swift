import ArgumentParser
import Foundation
import OfferLab
import OfferLabJob
import OfferLabSupport

/// `offerlab decompress`: the benchmark's baseline (hidden: not a user task).
struct DecompressCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decompress",
        abstract: "Decompress a job's log files and discard the bytes: the ceiling of `offerlab run`'s log reading.",
        discussion: """
            Reads the same files as `offerlab run JOB`, with the same inflater and the same number of \
            files at a time, and prints one line: files, compressed and uncompressed bytes, seconds.
            """,
        shouldDisplay: false
    )

    @Argument(help: "The job file (YAML).")
    var job: String

    @OptionGroup var inflaterOptions: InflaterOptions

    func run() async throws {
        let inflater = try inflaterOptions.resolved()
        try await runReportingErrors {
            var job = try JobLoader.load(path: job)
            job.inflater = inflater
            let report = try await DecompressionBaseline.run(job)
            try StandardStreams.writeLine(
                "decompressed \(report.files) files with \(inflater): \(report.compressedBytes) compressed bytes, "
                    + "\(report.uncompressedBytes) uncompressed bytes in \(String(format: "%.3f", report.seconds)) s")
        }
    }
}
