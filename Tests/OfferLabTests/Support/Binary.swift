import Foundation
import Synchronization
import Testing

/// The repository's root folder.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

/// The result of running the real `offerlab` binary.
struct ProcessResult {
    var status: Int32
    var standardOutput: String
    var standardError: String
    /// Whether a signal ended the process (`status` is then the signal's number).
    var wasKilled = false
}

/// Runs the `offerlab` executable built next to the test bundle and waits for it.
func runOfferLab(
    _ arguments: [String], environment: [String: String] = [:], fileSizeLimitKiB: Int? = nil, in folder: String? = nil
) throws -> ProcessResult {
    try OfferLabProcess(arguments, environment: environment, fileSizeLimitKiB: fileSizeLimitKiB, in: folder).wait()
}

/// The `offerlab` executable built next to the test bundle.
func offerLabBinary() throws -> String {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("offerlab").path
    try #require(FileManager.default.isExecutableFile(atPath: binary), "build the offerlab product first (swift build --build-tests)")
    return binary
}

/// A running `offerlab`, for tests that stop it at a stage (`OFFERLAB_TEST_PAUSE_AT`), kill
/// it or let it go on. It is killed, if still running, when the value goes away.
/// `@unchecked Sendable`: Foundation's `Process` is not `Sendable`; it is only started, read
/// and signalled, and what it writes is behind `written`.
final class OfferLabProcess: @unchecked Sendable {
    private let process = Process()
    private let written = Mutex((output: Data(), errors: Data()))
    private let readers = DispatchGroup()

    /// Starts the binary. `fileSizeLimitKiB` starts it under `ulimit -f` (through bash);
    /// `folder` is its working directory.
    convenience init(_ arguments: [String], environment: [String: String] = [:], fileSizeLimitKiB: Int? = nil, in folder: String? = nil)
        throws
    {
        let binary = try offerLabBinary()
        if let fileSizeLimitKiB {
            try self.init(
                executable: "/bin/bash", ["-c", "ulimit -f \(fileSizeLimitKiB) && exec \"$0\" \"$@\"", binary] + arguments,
                environment: environment, in: folder)
        } else {
            try self.init(executable: binary, arguments, environment: environment, in: folder)
        }
    }

    /// Starts `executable` (a script that runs the binary, for example).
    init(executable: String, _ arguments: [String], environment: [String: String] = [:], in folder: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        try process.run()
        drain(outputPipe, isStandardError: false)
        drain(errorPipe, isStandardError: true)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// What the process wrote to stderr so far.
    var standardError: String { written.withLock { String(decoding: $0.errors, as: UTF8.self) } }

    var isRunning: Bool { process.isRunning }

    var pid: Int32 { process.processIdentifier }

    /// Waits until the run printed the marker of `stage` and stopped itself there.
    func waitForPause(at stage: String, timeoutSeconds: Double = 120) throws {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while !(standardError.contains("offerlab-test-pause: \(stage)\n") && isStopped) {
            try #require(process.isRunning, "the run ended before the stage \(stage): \(standardError)")
            try #require(Date() < deadline, "the run did not reach the stage \(stage) in \(timeoutSeconds) s")
            usleep(10_000)
        }
    }

    /// Sends `signal` (SIGKILL, SIGCONT).
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the end of the process and of its output.
    func wait() -> ProcessResult {
        process.waitUntilExit()
        readers.wait()
        return written.withLock { written in
            ProcessResult(
                status: process.terminationStatus, standardOutput: String(decoding: written.output, as: UTF8.self),
                standardError: String(decoding: written.errors, as: UTF8.self), wasKilled: process.terminationReason == .uncaughtSignal)
        }
    }

    /// Whether the process is stopped (state `T` in /proc/PID/stat).
    private var isStopped: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let afterName = stat.range(of: ") ", options: .backwards)
        else { return false }
        return stat[afterName.upperBound...].hasPrefix("T")
    }

    /// Reads `pipe` until its end on a thread of its own, so that the process never blocks on a
    /// full pipe.
    private func drain(_ pipe: Pipe, isStandardError: Bool) {
        readers.enter()
        Thread.detachNewThread { [self] in
            let handle = pipe.fileHandleForReading
            while case let data = handle.availableData, !data.isEmpty {
                written.withLock { written in
                    if isStandardError { written.errors.append(data) } else { written.output.append(data) }
                }
            }
            readers.leave()
        }
    }
}

/// Parses RFC 4180 text into rows of fields (test-side, independent of the product's readers).
func parseCSV(_ text: String) -> [[String]] {
    var rows: [[String]] = []
    var row: [String] = []
    var field = ""
    var inQuotes = false
    var characters = Array(text).makeIterator()
    var pending: Character?
    while let character = pending ?? characters.next() {
        pending = nil
        if inQuotes {
            if character == "\"" {
                let next = characters.next()
                if next == "\"" {
                    field.append("\"")
                } else {
                    inQuotes = false
                    pending = next
                }
            } else {
                field.append(character)
            }
        } else if character == "\"" {
            inQuotes = true
        } else if character == "," {
            row.append(field)
            field = ""
        } else if character == "\n" || character == "\r\n" || character == "\r" {
            row.append(field)
            rows.append(row)
            row = []
            field = ""
        } else {
            field.append(character)
        }
    }
    if !field.isEmpty || !row.isEmpty {
        row.append(field)
        rows.append(row)
    }
    return rows
}

/// Compares two CSV files cell by cell: numbers within `relativeTolerance` (those of
/// `exactColumns` equal as doubles), text exactly.
/// Returns one line per difference.
func csvDifferences(actual: String, expected: String, relativeTolerance: Double = 1e-9, exactColumns: Set<String> = []) -> [String] {
    let actualRows = parseCSV(actual)
    let expectedRows = parseCSV(expected)
    var differences: [String] = []
    if actualRows.count != expectedRows.count {
        differences.append("row count \(actualRows.count) != \(expectedRows.count)")
    }
    let header = expectedRows.first ?? []
    for (index, (actualRow, expectedRow)) in zip(actualRows, expectedRows).enumerated() {
        guard actualRow.count == expectedRow.count else {
            differences.append("row \(index): \(actualRow.count) fields != \(expectedRow.count)")
            continue
        }
        for (column, (a, e)) in zip(actualRow, expectedRow).enumerated() where a != e {
            let name = column < header.count ? header[column] : "\(column)"
            let tolerance = exactColumns.contains(name) ? 0 : relativeTolerance
            if let x = Double(a), let y = Double(e), abs(x - y) <= tolerance * max(abs(x), abs(y), 1e-300) { continue }
            differences.append("row \(index) \(expectedRow.first ?? "") \(name): \(a) != \(e)")
        }
    }
    return differences
}
