import Foundation
import Testing

/// What a merge can leave behind in the repository itself.
@Suite struct RepositoryHygieneTests {
    /// Lines a merge conflict leaves: `<<<<<<< ours` and `>>>>>>> theirs` (git's own markers; a
    /// Markdown heading's `=======` underline is not one).
    static func conflictMarkerLines(_ text: String) -> [Int] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { number, line in
            for marker in ["<<<<<<<", ">>>>>>>"] where line == marker || line.hasPrefix(marker + " ") { return number + 1 }
            return nil
        }
    }

    @Test func theMarkersAreFound() {
        #expect(Self.conflictMarkerLines("a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> branch\n") == [2, 6])
        #expect(Self.conflictMarkerLines("Title\n=======\n<<<<<<<< eight is no marker\n").isEmpty)
    }

    /// No file git tracks holds a merge conflict's markers (docs/architecture.md once did, its two
    /// halves stating different rules).
    @Test func noTrackedFileHoldsConflictMarkers() throws {
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "-C", repositoryRoot.path, "ls-files", "-z"]
        let output = Pipe()
        git.standardOutput = output
        try git.run()
        let listing = output.fileHandleForReading.readDataToEndOfFile()
        git.waitUntilExit()
        try #require(git.terminationStatus == 0, "git ls-files failed in \(repositoryRoot.path)")
        let paths = listing.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(paths.count > 100, "git listed \(paths.count) files")
        for path in paths {
            let url = repositoryRoot.appendingPathComponent(path)
            // Binary files (gzip logs, images) are no text a merge writes markers into.
            guard let data = try? Data(contentsOf: url), !data.contains(0), let text = String(data: data, encoding: .utf8) else { continue }
            let lines = Self.conflictMarkerLines(text)
            #expect(lines.isEmpty, "\(path) holds merge-conflict markers at lines \(lines)")
        }
    }

    /// docs/performance.md is the page a user reads to size and tune a machine: at most 2,500
    /// words (issue 59; it had grown past them once). The measurements' details go to
    /// docs/performance-history.md.
    @Test func thePerformancePageStaysAPageAUserReads() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/performance.md"), encoding: .utf8)
        let words = text.split(whereSeparator: \.isWhitespace).count
        #expect(words <= 2_500, "docs/performance.md has \(words) words, over 2,500: move details to docs/performance-history.md")
    }
}
