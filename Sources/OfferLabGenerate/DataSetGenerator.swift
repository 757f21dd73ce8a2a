import Foundation
import OfferLabStoreSources
import Synchronization

/// One file of a generated data set.
public struct GeneratedFile: Sendable, Hashable {
    /// Path relative to the output folder (`logs/2026/03/01/events-0.jsonl.gz`).
    public var path: String
    /// Size on disk.
    public var bytes: Int64
}

/// What `DataSetGenerator.generate` wrote.
public struct GenerationReport: Sendable {
    public var outputDirectory: String
    /// Path of `job.yaml`.
    public var jobFile: String
    /// `as_of` of the job (the end of the period), `YYYY-MM-DDTHH:MM:SSZ`.
    public var asOf: String
    public var users: Int
    /// Rows of `user_offering_assignments` (invalid, duplicate and late rows included).
    public var assignmentRows: Int
    public var logs: LogCounts
    /// Every file written, sorted by path.
    public var files: [GeneratedFile]

    public var totalBytes: Int64 { files.reduce(0) { $0 + $1.bytes } }
}

/// Writes a synthetic, deterministic OfferLab data set: the offering tables, gzipped purchase
/// logs per day, and a job file (see `docs/generator.md` for what it contains).
///
/// The same configuration gives byte-identical files, whatever `jobs` is: every user has its
/// own random stream (seed ⊕ user index), and each log file is written by one worker from the
/// users of its shard in index order. Memory does not grow with the number of users.
public enum DataSetGenerator {
    /// Log files per day (user shards).
    public static let shardCount = 4

    /// Generates the data set. Throws a `GeneratorError` for a bad setting or an output folder
    /// that already holds a data set (unless `overwrite`), and the writer's error when a file
    /// cannot be written.
    public static func generate(_ configuration: GeneratorConfiguration) throws -> GenerationReport {
        try configuration.validate()
        let out = configuration.outputDirectory
        try prepare(configuration)

        var tableFiles = try TableWriter.writeOfferingTables(into: out)
        // The App Store's form is signed by a test chain of the data set's own, made like
        // Apple's and valid well around the period, whose root the job trusts.
        let signer: AppStoreTestSigner?
        if configuration.sourceFormat == .appStoreNotifications {
            let day = 86_400.0
            let start = Double(configuration.startMicros) / 1e6
            signer = try AppStoreTestSigner(
                validFrom: Date(timeIntervalSince1970: start - 400 * day),
                validUntil: Date(timeIntervalSince1970: start + Double(configuration.days + 400) * day))
        } else {
            signer = nil
        }

        // The assignments table and the log shards, on `jobs` threads.
        enum Work: Sendable {
            case assignments
            case shard(Int)
        }
        let work: [Work] = (0..<shardCount).map { .shard($0) } + [.assignments]
        let results = Mutex<(next: Int, rows: Int, logs: LogCounts, userTransactions: [Int: [UInt8]], error: (any Error)?)>(
            (0, 0, LogCounts(), [:], nil))
        let width = min(configuration.jobs, work.count)
        DispatchQueue.concurrentPerform(iterations: width) { _ in
            while true {
                let item: Work? = results.withLock { state in
                    guard state.error == nil, state.next < work.count else { return nil }
                    state.next += 1
                    return work[state.next - 1]
                }
                guard let item else { return }
                do {
                    switch item {
                    case .assignments:
                        let rows = try TableWriter.writeAssignments(configuration: configuration)
                        results.withLock { $0.rows = rows }
                    case .shard(let shard):
                        var writer = LogShardWriter(
                            configuration: configuration, shard: shard, shardCount: shardCount,
                            store: storeWriter(configuration: configuration, shard: shard, signer: signer))
                        let counts = try writer.run()
                        let rows = writer.userTransactionRows
                        results.withLock {
                            $0.logs = $0.logs + counts
                            $0.userTransactions[shard] = rows
                        }
                    }
                } catch {
                    results.withLock { if $0.error == nil { $0.error = error } }
                }
            }
        }
        var (rows, logs, userTransactions, failure) = results.withLock { ($0.rows, $0.logs, $0.userTransactions, $0.error) }
        if let failure { throw failure }
        if let signer {
            tableFiles.append(
                try TableWriter.writeUserTransactions(
                    into: out, rows: (0..<shardCount).flatMap { userTransactions[$0] ?? [] }))
            let root = out + "/" + AppStoreNotificationWriter.rootCertificatePath
            guard FileManager.default.createFile(atPath: root, contents: Data(signer.rootCertificateDER)) else {
                throw GeneratorError("cannot write the test root certificate", path: root)
            }
        }
        if configuration.layout == .oneFile {
            try OneFileLayout.join(configuration: configuration, shardCount: shardCount, logs: &logs)
        }

        let jobPath = out + "/" + JobFile.name
        guard FileManager.default.createFile(atPath: jobPath, contents: Data(JobFile.text(configuration: configuration).utf8))
        else { throw GeneratorError("cannot write the job file", path: jobPath) }

        var files: [GeneratedFile] = []
        for relative in tableFiles + [TableWriter.folder + "/" + TableWriter.assignmentsName, JobFile.name] {
            files.append(GeneratedFile(path: relative, bytes: try size(of: out + "/" + relative)))
        }
        let logFolders = ["logs", LogShardWriter.showcaseFolder, RevenueCatWriter.folder, AppStoreNotificationWriter.folder]
        for relative in try logFolders.flatMap({ try logFiles(in: out, folder: $0) }) {
            files.append(GeneratedFile(path: relative, bytes: try size(of: out + "/" + relative)))
        }
        files.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        return GenerationReport(
            outputDirectory: out, jobFile: jobPath, asOf: configuration.asOfText, users: configuration.users,
            assignmentRows: rows, logs: logs, files: files)
    }

    /// The writer of a shard's store files in the data set's store form, if it has one.
    private static func storeWriter(
        configuration: GeneratorConfiguration, shard: Int, signer: AppStoreTestSigner?
    ) -> (any StoreFactWriter)? {
        switch configuration.sourceFormat {
        case .offerlab: nil
        case .revenueCatExport, .revenueCatWebhooks: RevenueCatWriter(configuration: configuration, shard: shard)
        case .appStoreNotifications: signer.map { AppStoreNotificationWriter(configuration: configuration, shard: shard, signer: $0) }
        }
    }

    /// Creates the folders. An existing `tables/`, `logs/`, `showcase/`, `revenuecat/`,
    /// `appstore/` or `job.yaml` is an error unless `overwrite`, which removes exactly those
    /// (nothing else in the folder).
    private static func prepare(_ configuration: GeneratorConfiguration) throws {
        let manager = FileManager.default
        let out = configuration.outputDirectory
        let owned = [
            TableWriter.folder, "logs", LogShardWriter.showcaseFolder, RevenueCatWriter.folder, AppStoreNotificationWriter.folder,
            JobFile.name,
        ]
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
            for day in 0...configuration.days {
                let folder = LogShardWriter.relativePath(day: day, shard: 0, part: 0, configuration: configuration)
                try manager.createDirectory(
                    atPath: out + "/" + folder[..<(folder.lastIndex(of: "/") ?? folder.endIndex)], withIntermediateDirectories: true)
                if let storeFile = configuration.sourceFormat.relativePath(day: day, shard: 0, configuration: configuration) {
                    try manager.createDirectory(
                        atPath: out + "/" + storeFile[..<(storeFile.lastIndex(of: "/") ?? storeFile.endIndex)],
                        withIntermediateDirectories: true)
                }
            }
        } catch {
            throw GeneratorError("cannot create the output folders: \(error.localizedDescription)", path: out)
        }
    }

    /// Every file under `folder` (`logs`, `showcase`, `revenuecat`, `appstore`), relative to `out`; none when the folder
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
