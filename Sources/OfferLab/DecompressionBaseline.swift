import Foundation
import OfferLabIngest
import OfferLabJob
import OfferLabSupport

/// What decompressing a job's log files, and nothing else, took.
package struct DecompressionReport: Sendable {
    package var files: Int
    package var compressedBytes: Int64
    package var uncompressedBytes: Int64
    package var seconds: Double
}

/// The ceiling of `offerlab run`'s log reading: the same files, inflater and width, with the
/// bytes thrown away instead of parsed (`offerlab decompress`, used by the benchmark).
package enum DecompressionBaseline {
    package static func run(_ job: Job) async throws -> DecompressionReport {
        let clock = ContinuousClock()
        let start = clock.now
        var report = DecompressionReport(files: job.inputs.logFiles.count, compressedBytes: 0, uncompressedBytes: 0, seconds: 0)
        let files = job.inputs.logFiles
        try await InOrder.run(count: files.count, width: job.run.threads) { index in
            do {
                let reader = try InputFileReader(path: files[index], inflater: job.run.inflater)
                while try reader.nextChunk() != nil {}
                return (reader.compressedBytesRead, reader.uncompressedBytes)
            } catch let error as IngestError {
                throw OfferLabError(.unreadableLog, context: "log file ", error)
            }
        } merge: { compressed, uncompressed in
            report.compressedBytes += compressed
            report.uncompressedBytes += uncompressed
        }
        let elapsed = clock.now - start
        report.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return report
    }
}
