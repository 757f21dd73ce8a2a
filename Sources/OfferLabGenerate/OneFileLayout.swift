import Foundation
import OfferLabIngest

/// The `one-file` layout: the daily shards, written as usual under `logs/parts/`, joined into
/// `logs/events.jsonl.gz` and `logs/events.csv.gz`. Gzip members may follow one another, so the
/// pieces are appended byte for byte (no inflating again); the CSV log starts with a member
/// holding its header row.
enum OneFileLayout {
    static let jsonPath = "logs/events.jsonl.gz"
    static let csvPath = "logs/events.csv.gz"

    /// Joins the pieces in the order of the daily layout's paths (day, then shard), so that
    /// every tie of the de-duplication's "first in file order" (docs/analysis.md §2) falls the same
    /// way, removes them, and corrects `logs` for the files that remain.
    static func join(configuration: GeneratorConfiguration, shardCount: Int, logs: inout LogCounts) throws {
        let out = configuration.outputDirectory
        var json: [String] = []
        var csv: [String] = []
        for day in 0...configuration.days {
            for shard in 0..<shardCount {
                let relative = LogShardWriter.relativePath(day: day, shard: shard, part: 0, configuration: configuration)
                guard FileManager.default.fileExists(atPath: out + "/" + relative) else { continue }
                if LogShardWriter.isCSV(day: day, shard: shard) { csv.append(relative) } else { json.append(relative) }
            }
        }
        // The showcase files stay as they are.
        logs.files = logs.showcaseFiles
        if !json.isEmpty {
            try append(json, to: jsonPath, out: out)
            logs.files += 1
        }
        if !csv.isEmpty {
            let header = LogShardWriter.partsFolder + "/header.csv.gz"
            let writer = try GzipWriter(path: out + "/" + header, level: configuration.compressionLevel)
            var row: [UInt8] = []
            row.appendASCII(LogFile.csvHeader)
            row.append(10)
            try writer.write(row)
            try writer.finish()
            logs.uncompressedBytes += Int64(row.count)
            try append([header] + csv, to: csvPath, out: out)
            logs.files += 1
        }
        logs.multiMemberFiles = logs.files - logs.showcaseFiles
        do {
            try FileManager.default.removeItem(atPath: out + "/" + LogShardWriter.partsFolder)
        } catch {
            throw GeneratorError("cannot remove the joined pieces: \(error.localizedDescription)", path: out)
        }
    }

    private static func append(_ pieces: [String], to relative: String, out: String) throws {
        let path = out + "/" + relative
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw GeneratorError("cannot create the file", path: path)
        }
        defer { try? handle.close() }
        do {
            for piece in pieces {
                try handle.write(contentsOf: Data(contentsOf: URL(fileURLWithPath: out + "/" + piece)))
            }
        } catch {
            throw GeneratorError("cannot join the log pieces: \(error.localizedDescription)", path: path)
        }
    }
}
