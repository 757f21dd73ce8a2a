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

    @OptionGroup var jobOptions: JobOptions

    @OptionGroup var inflaterOptions: InflaterOptions

    func run() async throws {
        try await runReportingErrors {
            let job = try jobOptions.load(inflaterOptions)
            let report = try await DecompressionBaseline.run(job)
            try StandardStreams.writeLine(
                "decompressed \(report.files) files with \(job.run.inflater): \(report.compressedBytes) compressed bytes, "
                    + "\(report.uncompressedBytes) uncompressed bytes in \(String(format: "%.3f", report.seconds)) s")
        }
    }
}
