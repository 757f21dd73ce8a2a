import Foundation
import OfferLabStoreSources
import OfferLabSupport

/// One file of a generated data set.
package struct GeneratedFile: Sendable, Hashable {
    /// Path relative to the output folder (`logs/2026/03/01/events-0.jsonl.gz`).
    package var path: String
    /// Size on disk.
    package var bytes: Int64
}

/// What `DataSetGenerator.generate` wrote.
package struct GenerationReport: Sendable {
    package var outputDirectory: String
    /// Path of `job.yaml`.
    package var jobFile: String
    /// `as_of` of the job (the end of the period), `YYYY-MM-DDTHH:MM:SSZ`.
    package var asOf: String
    package var users: Int
    /// Rows of `user_offering_assignments` (invalid, duplicate and late rows included).
    package var assignmentRows: Int
    package var logs: LogCounts
    /// Every file written, sorted by path.
    package var files: [GeneratedFile]

    package var totalBytes: Int64 { files.reduce(0) { $0 + $1.bytes } }
}

/// Writes a synthetic, deterministic OfferLab data set: the offering tables, gzipped purchase
/// logs per day, and a job file (see `docs/generator.md` for what it contains).
///
/// The same configuration gives byte-identical files, whatever `jobs` is: every user has its
/// own random stream (seed ⊕ user index), and each log file is written by one worker from the
/// users of its shard in index order. Memory does not grow with the number of users.
package enum DataSetGenerator {
    /// Log files per day (user shards).
    package static let shardCount = 4

    /// Generates the data set. Throws a `GeneratorError` for a bad setting or an output folder
    /// that already holds a data set (unless `overwrite`), and the writer's error when a file
    /// cannot be written.
    package static func generate(_ configuration: GeneratorConfiguration) async throws -> GenerationReport {
        try configuration.validate()
        let out = configuration.outputDirectory
        try prepare(configuration)

        var tableFiles = try TableWriter.writeOfferingTables(into: out)
        // The App Store's form is signed by a test chain of the data set's own, made like
        // Apple's and valid well around the period, whose root the job trusts.
        let signer: AppStoreTestSigner?
        if configuration.shape.sourceFormat.isSigned {
            let day = 86_400.0
            let start = Double(configuration.startMicros) / 1e6
            signer = try AppStoreTestSigner(
                validFrom: Date(timeIntervalSince1970: start - 400 * day),
                validUntil: Date(timeIntervalSince1970: start + Double(configuration.days + 400) * day))
        } else {
            signer = nil
        }

        // The log shards, then the assignments table, `jobs` at a time: each writes files of its
        // own, and what they report is added up in that order.
        enum Written: Sendable {
            case shard(LogCounts, userTransactionRows: [UInt8])
            case assignments(rows: Int)
        }
        var rows = 0
        var logs = LogCounts()
        var userTransactionRows: [UInt8] = []
        try await InOrder.run(count: shardCount + 1, width: configuration.jobs) { index -> Written in
            guard index < shardCount else { return .assignments(rows: try TableWriter.writeAssignments(configuration: configuration)) }
            var writer = LogShardWriter(
                configuration: configuration, shard: index, shardCount: shardCount,
                store: configuration.shape.sourceFormat.storeWriter(configuration: configuration, shard: index, signer: signer))
            let counts = try writer.run()
            return .shard(counts, userTransactionRows: writer.userTransactionRows)
        } merge: { written in
            switch written {
            case .shard(let counts, let shardRows):
                logs = logs + counts
                userTransactionRows += shardRows
            case .assignments(let assignmentRows):
                rows = assignmentRows
            }
        }
        if configuration.shape.sourceFormat.hasUserTransactions {
            tableFiles.append(try TableWriter.writeUserTransactions(into: out, rows: userTransactionRows))
        }
        if let signer {
            let root = out + "/" + AppStoreNotificationWriter.rootCertificatePath
            guard FileManager.default.createFile(atPath: root, contents: Data(signer.rootCertificateDER)) else {
                throw GeneratorError("cannot write the test root certificate", path: root)
            }
        }
        if configuration.shape.layout == .oneFile {
            try OneFileLayout.join(configuration: configuration, shardCount: shardCount, logs: &logs)
        }
        let history = try HistoryWriter.write(configuration: configuration)
        logs.historyFiles = history.files.count
        logs.historyLines = history.lines

        let logFolders = ["logs", LogShardWriter.showcaseFolder, HistoryWriter.folder] + SourceFormat.storeFolders
        let writtenLogs = try logFolders.flatMap { try logFiles(in: out, folder: $0) }
        let jobPath = out + "/" + JobFile.name
        let job = JobFile.text(configuration: configuration, logs: logs, written: writtenLogs)
        guard FileManager.default.createFile(atPath: jobPath, contents: Data(job.utf8)) else {
            throw GeneratorError("cannot write the job file", path: jobPath)
        }

        var files: [GeneratedFile] = []
        for relative in tableFiles + [TableWriter.folder + "/" + TableWriter.assignmentsName, JobFile.name] {
            files.append(GeneratedFile(path: relative, bytes: try size(of: out + "/" + relative)))
        }
        for relative in writtenLogs {
            files.append(GeneratedFile(path: relative, bytes: try size(of: out + "/" + relative)))
        }
        files.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        return GenerationReport(
            outputDirectory: out, jobFile: jobPath, asOf: configuration.asOfText, users: configuration.users,
            assignmentRows: rows, logs: logs, files: files)
    }

    /// Creates the folders. An existing `tables/`, `logs/`, `showcase/`, `history/`, `revenuecat/`,
    /// `appstore/`, `googleplay/` or `job.yaml` is an error unless `overwrite`, which removes exactly those
    /// (nothing else in the folder).
    private static func prepare(_ configuration: GeneratorConfiguration) throws {
        let manager = FileManager.default
        let out = configuration.outputDirectory
        let owned =
            [TableWriter.folder, "logs", LogShardWriter.showcaseFolder, HistoryWriter.folder] + SourceFormat.storeFolders + [JobFile.name]
        for name in owned where manager.fileExists(atPath: out + "/" + name) {
            guard configuration.overwrite else {
                throw GeneratorError(
                    "already holds a data set (\(name)); choose another folder or pass --force to replace it", path: out)
            }
            do {
                try manager.removeItem(atPath: out + "/" + name)
            } catch {
                throw GeneratorError("cannot remove \(name): \(error.localizedDescription)", path: out)
            }
        }
        do {
            try manager.createDirectory(atPath: out + "/" + TableWriter.folder, withIntermediateDirectories: true)
            try manager.createDirectory(atPath: out + "/" + LogShardWriter.showcaseFolder, withIntermediateDirectories: true)
            for month in 0..<HistoryWriter.months {
                let file = HistoryWriter.relativePath(month: month, configuration: configuration)
                try manager.createDirectory(
                    atPath: out + "/" + file[..<(file.lastIndex(of: "/") ?? file.endIndex)], withIntermediateDirectories: true)
            }
            for day in 0...configuration.days {
                let folder = LogShardWriter.relativePath(day: day, shard: 0, part: 0, configuration: configuration)
                try manager.createDirectory(
                    atPath: out + "/" + folder[..<(folder.lastIndex(of: "/") ?? folder.endIndex)], withIntermediateDirectories: true)
                for storeFile in configuration.shape.sourceFormat.relativePaths(day: day, shard: 0, configuration: configuration) {
                    try manager.createDirectory(
                        atPath: out + "/" + storeFile[..<(storeFile.lastIndex(of: "/") ?? storeFile.endIndex)],
                        withIntermediateDirectories: true)
                }
            }
        } catch {
            throw GeneratorError("cannot create the output folders: \(error.localizedDescription)", path: out)
        }
    }

    /// Every file under `folder` (`logs`, `showcase`, `history`, `revenuecat`, `appstore`, `googleplay`), relative to `out`; none when the folder
    /// does not exist.
    private static func logFiles(in out: String, folder: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: out + "/" + folder) else { return [] }
        guard let enumerator = FileManager.default.enumerator(atPath: out + "/" + folder) else {
            throw GeneratorError("cannot list the log files", path: out + "/" + folder)
        }
        var files: [String] = []
        while let next = enumerator.nextObject() as? String {
            if enumerator.fileAttributes?[.type] as? FileAttributeType == .typeRegular { files.append(folder + "/" + next) }
        }
        return files
    }

    private static func size(of path: String) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }
}
