import Foundation
import Testing

/// docs/concurrency.md's table of where each mechanism is used, and its list of
/// `@unchecked Sendable` types, held to the code.
@Suite struct ConcurrencyDocTests {
    /// What starts concurrent work, as the code spells it and as the table's "what" column names it.
    static let mechanisms: [(code: String, table: String)] = [
        ("InOrder.run(", "`InOrder.run`"), ("ConcurrentWork {", "`ConcurrentWork`"), ("= Task {", "unstructured `Task`"),
        (": Task {", "unstructured `Task`"),
    ]

    /// Where offerlab starts threads and blocks on them: nowhere else.
    static let blockingFolder = "Blocking/"

    static func document() throws -> String {
        try String(contentsOf: repositoryRoot.appending(path: "docs/concurrency.md"), encoding: .utf8)
    }

    /// The rows of the "Where each is used" table.
    static func rows() throws -> [String] {
        let section = try #require(try document().components(separatedBy: "## Where each is used").last)
        return section.components(separatedBy: "\n## ")[0].split(separator: "\n").map(String.init).filter { $0.hasPrefix("| `") }
    }

    /// Lines of code, comments left out.
    static func code(_ source: String) -> [Substring] {
        source.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
    }

    @Test func everyFileThatStartsWorkHasARowNamingItsMechanism() throws {
        let rows = try Self.rows()
        #expect(rows.count >= 10)
        var found = 0
        for (_, file, source) in try LayerTests.sourceFiles()
        where !file.hasSuffix("InOrder.swift") && !file.hasPrefix(Self.blockingFolder) {
            let stem = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
            for mechanism in Self.mechanisms where Self.code(source).contains(where: { $0.contains(mechanism.code) }) {
                found += 1
                #expect(
                    rows.contains { $0.contains(stem) && $0.contains(mechanism.table) },
                    "\(file) starts work with \(mechanism.table), and no row of docs/concurrency.md names both")
            }
        }
        #expect(found >= 10)
    }

    /// Threads, POSIX threads and their locks, Dispatch, and `@unchecked Sendable` only in
    /// `OfferLabIngest/Blocking/`; everything else shares work through its types, `InOrder`,
    /// tasks and `Mutex`.
    @Test func threadsAndUncheckedSharingLiveInTheBlockingFolder() throws {
        let words = [
            "Thread {", "Thread(", "pthread_", "DispatchQueue", "DispatchSemaphore", "DispatchGroup", "NSLock", "NSCondition",
            "@unchecked Sendable",
        ]
        var outside: [String] = []
        var inside = 0
        for (target, file, source) in try LayerTests.sourceFiles() {
            for word in words where Self.code(source).contains(where: { $0.contains(word) }) {
                if target == "OfferLabIngest" && file.hasPrefix(Self.blockingFolder) {
                    inside += 1
                } else {
                    outside.append("\(target)/\(file): \(word)")
                }
            }
        }
        #expect(outside == [])
        #expect(inside >= 4)
    }

    @Test func everyUncheckedSendableIsListedWithItsReason() throws {
        let list = try #require(try Self.document().components(separatedBy: "## `@unchecked Sendable`").last)
            .components(separatedBy: "\n## ")[0]
        var declared: [String] = []
        for (_, file, source) in try LayerTests.sourceFiles() {
            let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() where line.contains(": @unchecked Sendable") && !line.contains("//") {
                let name = try #require(
                    line.split(whereSeparator: { " :<".contains($0) }).drop { !["struct", "class", "extension"].contains($0) }.dropFirst()
                        .first)
                declared.append(String(name))
                // Its reason is written beside it, in the comment just above.
                #expect(lines[max(0, index - 4)..<index].contains { $0.contains("`@unchecked Sendable`") }, "\(file): \(name)")
            }
        }
        #expect(declared.sorted() == ["BlockingQueue", "SharedAcrossThreads", "SharedMemory"])
        for name in declared { #expect(list.contains("`\(name)") || list.contains(".\(name)`"), "\(name) is not in the list") }
    }
}
