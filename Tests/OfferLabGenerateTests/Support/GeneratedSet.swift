import Foundation
import OfferLabIngest

@testable import OfferLabGenerate

/// A data set generated into a temporary folder for a test, and helpers to read it back.
struct GeneratedSet {
    let directory: String
    let configuration: GeneratorConfiguration
    let report: GenerationReport

    /// Generates into a new temporary folder, or into `fixedName`-<pid> under the temporary
    /// folder (replacing what an earlier run left there) for sets shared by a suite; the pid
    /// keeps two test processes running at once apart.
    static func make(
        users: Int, seed: UInt64 = 1, days: Int = 3, jobs: Int = 2, fixedName: String? = nil, eventIDs: EventIDShape = .uuid,
        userIDs: UserIDShape = .numeric, layout: LogLayout = .dailyShards
    ) async throws -> GeneratedSet {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent(fixedName.map { "\($0)-\(getpid())" } ?? "offerlab-generate-\(UUID().uuidString)").path
        if fixedName != nil { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = GeneratorConfiguration(
            outputDirectory: directory, users: users, seed: seed, days: days, jobs: jobs,
            shape: DataSetShape(eventIDs: eventIDs, userIDs: userIDs, layout: layout))
        let report = try await DataSetGenerator.generate(configuration)
        return GeneratedSet(directory: directory, configuration: configuration, report: report)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func path(_ relative: String) -> String { directory + "/" + relative }

    /// Every regular file under the folder, relative paths, sorted.
    func allFiles() -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var files: [String] = []
        while let next = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path(next), isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(next)
            }
        }
        return files.sorted()
    }

    /// The decompressed bytes of a file, through the product's reader.
    func readBytes(_ relative: String) throws -> [UInt8] {
        let reader = try InputFileReader(path: path(relative), bufferSize: 4096)
        var bytes: [UInt8] = []
        try reader.forEachChunk { bytes.append(contentsOf: $0) }
        return bytes
    }

    func rawBytes(_ relative: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path(relative))))
    }

    /// The log files: `logs/` and `showcase/` (the malformed lines that name money, and the
    /// fixed ones).
    var logFiles: [String] { allFiles().filter { $0.hasPrefix("logs/") || $0.hasPrefix(LogShardWriter.showcaseFolder + "/") } }

    /// The non-blank lines of a file (line ends `\n` or `\r\n`).
    static func lines(_ bytes: [UInt8]) -> (lines: [[UInt8]], blank: Int) {
        var lines: [[UInt8]] = []
        var blank = 0
        for var line in bytes.split(separator: 10, omittingEmptySubsequences: false).map(Array.init) {
            if line.last == 13 { line.removeLast() }
            if line.isEmpty { blank += 1 } else { lines.append(line) }
        }
        // The empty piece after a final newline is not a blank line.
        if bytes.last == 10 { blank -= 1 }
        return (lines, blank)
    }

    /// Number of gzip members: counts `1f 8b 08` headers by walking the members with zlib.
    func gzipMembers(_ relative: String) throws -> [Int] {
        try GzipMembers.uncompressedSizes(of: rawBytes(relative))
    }
}
