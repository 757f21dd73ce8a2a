import Foundation
import Testing

/// Every output written whole or not at all (docs/reliability.md, Disk full, unwritable outputs): standard output or a
/// file that cannot take the bytes (full disk, closed pipe, `/dev/full`) exits 73 with one line.
@Suite struct OutputFailureTests {
    /// Runs the binary with its standard output sent to `standardOutput` (a file handle the test
    /// prepares) and returns the exit status and standard error.
    private func run(_ arguments: [String], standardOutput: FileHandle) throws -> (status: Int32, standardError: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try offerLabBinary())
        process.arguments = arguments
        process.standardOutput = standardOutput
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, errorText)
    }

    private func nightWithDatabase() throws -> NightFixture {
        let night = try NightFixture()
        let run = try night.run()
        try #require(run.status == 0, "\(run.standardError)")
        return night
    }

    @Test func aReportOnStandardOutputThatIsFullExits73() throws {
        let night = try nightWithDatabase()
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let result = try run(["report", "--db", night.databasePath, "--as-of", "2026-03-16", "--output", "-"], standardOutput: full)
        #expect(result.status == 73, "\(result.standardError)")
        #expect(result.standardError == "offerlab: error: cannot write to standard output: No space left on device\n")
    }

    @Test func aSQLScriptIntoAClosedPipeExits73() throws {
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        // A job of the log format: `sql` refuses the sample's (it has a Google Play share).
        let job = repositoryRoot.appendingPathComponent("tools/reference/tests/data/main/job.yaml").path
        let result = try run(["sql", job, "--dialect", "duckdb"], standardOutput: pipe.fileHandleForWriting)
        #expect(result.status == 73, "\(result.standardError)")
        #expect(result.standardError == "offerlab: error: cannot write to standard output: Broken pipe\n")
    }

    @Test func aReportIntoDevFullExits73AndLeavesTheDeviceAlone() throws {
        let night = try nightWithDatabase()
        let result = try runOfferLab(["report", "--db", night.databasePath, "--as-of", "2026-03-16", "--output", "/dev/full"])
        #expect(result.status == 73, "\(result.standardError)")
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError == "offerlab: error: cannot write /dev/full: No space left on device\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: "/dev/full")
        #expect(attributes[.type] as? FileAttributeType == .typeCharacterSpecial)
    }

    @Test func aRunWhoseStandardOutputIsFullExits73() throws {
        let night = try NightFixture()
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let result = try run(["run", night.jobPath], standardOutput: full)
        #expect(result.status == 73, "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
    }

    /// No `try!`, `fatalError`, `print` or Foundation standard-stream write in the product: each
    /// would crash, or lose bytes without a word, when an output cannot be written.
    @Test func theProductHasNoCrashingOrSilentWrites() throws {
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 100)
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//") else { continue }
                for pattern in ["try!", "fatalError(", "FileHandle.standardOutput", "FileHandle.standardError"]
                where code.contains(pattern) {
                    found.append("\(file):\(number + 1): \(pattern)")
                }
                if code.range(of: #"(^|[^\w.])print\("#, options: .regularExpression) != nil {
                    found.append("\(file):\(number + 1): print")
                }
            }
        }
        #expect(found.isEmpty, "\(found)")
    }
}
