import Foundation
import OfferLabGenerate
import OfferLabStoreSources

/// A generated data set in the App Store's form: `generate DIR USERS [FORMAT]` writes one (seed
/// 42, 14 days, `--user-ids uuid`, one thread per core; FORMAT `offerlab` writes the same data
/// set in the logs' form, to compare); `read DIR` reads its notifications as a run
/// does (verified against the job's root certificate, the files read as tasks on every core, resolved with its
/// `user_transactions` table) and prints what it found and the notifications per CPU second.
enum GeneratedSet {
    static func run(_ arguments: [String]) async throws {
        guard arguments.count >= 2 else { throw Usage() }
        let folder = arguments[1]
        let cores = ProcessInfo.processInfo.activeProcessorCount
        switch arguments[0] {
        case "generate":
            guard arguments.count >= 3, let users = Int(arguments[2]),
                let format = SourceFormat(rawValue: arguments.count > 3 ? arguments[3] : "app_store_notifications")
            else { throw Usage() }
            let report = try await DataSetGenerator.generate(
                GeneratorConfiguration(
                    outputDirectory: folder, users: users, seed: 42, jobs: cores, overwrite: true,
                    shape: DataSetShape(userIDs: .uuid, sourceFormat: format)))
            print(
                "\(report.users) users: \(report.logs.storeLines) notifications in \(report.logs.storeFiles) files, "
                    + "\(report.logs.lines) app log lines, \(report.logs.userTransactionRows) user_transactions rows")
        default:
            try await read(folder, cores: cores)
        }
    }

    struct Usage: Error, CustomStringConvertible {
        var description: String { "usage: store-sources-benchmark generate DIR USERS [FORMAT] | read DIR" }
    }

    static func read(_ folder: String, cores: Int) async throws {
        let job = try String(contentsOfFile: folder + "/job.yaml", encoding: .utf8)
        guard let bundleID = job.firstMatch(of: /bundle_id: (\S+)/)?.output.1,
            let root = job.firstMatch(of: /root_certificates: \[([^\],]*)\]/)?.output.1
        else { throw Usage() }
        let decoder = AppStoreNotificationDecoder(
            bundleID: String(bundleID),
            verifier: try AppStoreSignatureVerifier(rootCertificates: [
                Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + root)))
            ]))
        let notifications = folder + "/appstore/notifications"
        let paths = (FileManager.default.subpaths(atPath: notifications) ?? []).filter { $0.hasSuffix(".jsonl.gz") }
            .map { notifications + "/" + $0 }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var table: [String: String] = [:]
        let rows = try String(contentsOfFile: folder + "/tables/user_transactions.csv", encoding: .utf8)
        for row in rows.split(separator: "\n").dropFirst() {
            let fields = row.split(separator: ",")
            table[String(fields[1])] = String(fields[0])
        }

        let cpuStart = processCPUSeconds()
        let start = ContinuousClock.now
        // Every file at once, as tasks sharing the cores, merged in path order.
        let readings = try await withThrowingTaskGroup(of: (Int, AppStoreFileReading).self) { group in
            for (index, path) in paths.enumerated() {
                group.addTask { (index, try await AppStoreNotificationFile.read(path: path, decoder: decoder)) }
            }
            var readings = [AppStoreFileReading?](repeating: nil, count: paths.count)
            for try await (index, reading) in group { readings[index] = reading }
            return readings.compactMap { $0 }
        }
        let records = AppStoreNotificationFile.records(readings)
        let resolution = StoreEventResolver.resolve(sources: [records], userTransactions: table, asOf: .max)
        let elapsed = ContinuousClock.now - start
        let cpu = processCPUSeconds() - cpuStart
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let lines = records.counts[.linesRead]
        print(
            "\(paths.count) files, \(lines) notifications, \(records.counts.malformedLines) malformed, "
                + "\(records.transactions.count) transactions, \(resolution.events.count) events")
        print(
            String(
                format: "read on %d cores: %.2f s wall, %.2f s CPU; per core: %.0f notifications/s", cores, wall, cpu,
                Double(lines) / cpu))
    }
}
