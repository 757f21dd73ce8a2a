import Foundation
import Testing

@testable import OfferLabGenerate

@Suite struct FileLayoutTests {
    @Test func writesTheTablesTheLogsPerDayAndTheJob() async throws {
        let set = try await GeneratedSet.make(users: 400, days: 3)
        defer { set.remove() }
        let files = set.allFiles()
        for table in [
            "tables/subscription_offerings.csv", "tables/subscription_offering_groups.tsv",
            "tables/subscription_offering_group_products.csv", "tables/subscription_offering_group_copy.tsv",
            "tables/user_offering_assignments.csv.gz", "job.yaml",
        ] {
            #expect(files.contains(table), "\(table) is missing")
        }
        // Four shards a day, for the three days and the as_of day (events after the end).
        for day in ["01", "02", "03", "04"] {
            for shard in 0..<4 {
                let json = "logs/2026/03/\(day)/events-\(shard).jsonl.gz"
                let csv = "logs/2026/03/\(day)/events-\(shard).csv.gz"
                #expect(files.contains(json) != files.contains(csv), "day \(day) shard \(shard)")
            }
        }
        #expect(!files.contains { $0.hasPrefix("logs/2026/03/05") })
        #expect(files.filter { $0.hasSuffix(".csv.gz") }.count >= 3)
        // The fixed malformed lines, apart (shard 0 writes them).
        #expect(files.contains("showcase/malformed-0.jsonl.gz") && files.contains("showcase/malformed-0.csv.gz"))
        // The report lists exactly the files on disk, with their sizes.
        #expect(set.report.files.map(\.path) == files)
        for file in set.report.files {
            #expect(file.bytes == Int64(try set.rawBytes(file.path).count))
        }
        #expect(set.report.logs.files == set.logFiles.count)
    }

    @Test func gzipIsDetectedByContentAndEveryGzipFileReadsBack() async throws {
        let set = try await GeneratedSet.make(users: 600, days: 2)
        defer { set.remove() }
        var uncompressed: Int64 = 0
        for file in set.allFiles() {
            let raw = try set.rawBytes(file)
            let isGzip = raw.starts(with: [0x1f, 0x8b])
            #expect(isGzip == file.hasSuffix(".gz"), "\(file)")
            let bytes = try set.readBytes(file)
            if isGzip {
                let members = try set.gzipMembers(file)
                #expect(members.reduce(0, +) == bytes.count, "\(file)")
                if set.logFiles.contains(file) { uncompressed += Int64(bytes.count) }
            } else {
                #expect(bytes == raw)
            }
        }
        #expect(uncompressed == set.report.logs.uncompressedBytes)
    }

    @Test func someLogFilesHaveSeveralMembersWithABoundaryInsideALine() async throws {
        let set = try await GeneratedSet.make(users: 1500, days: 2)
        defer { set.remove() }
        var multiMember = 0
        var boundaryInsideLine = 0
        for file in set.logFiles {
            let members = try set.gzipMembers(file)
            guard members.count > 1 else { continue }
            multiMember += 1
            let bytes = try set.readBytes(file)
            var offset = 0
            for size in members.dropLast() {
                offset += size
                if bytes[offset - 1] != 10 { boundaryInsideLine += 1 }
            }
        }
        #expect(multiMember == set.report.logs.multiMemberFiles)
        #expect(multiMember >= 2)
        #expect(boundaryInsideLine >= 2)
    }

    @Test func lineEndingsAndFinalNewlinesVary() async throws {
        let set = try await GeneratedSet.make(users: 800, days: 3)
        defer { set.remove() }
        var crlf = 0
        var lf = 0
        var noFinalNewline = 0
        for file in set.logFiles {
            let bytes = try set.readBytes(file)
            let hasCRLF = zip(bytes, bytes.dropFirst()).contains { $0 == 13 && $1 == 10 }
            if hasCRLF { crlf += 1 } else { lf += 1 }
            if bytes.last != 10 { noFinalNewline += 1 }
        }
        #expect(crlf >= 2)
        #expect(lf >= 2)
        #expect(noFinalNewline >= 1)
        // Tables: CRLF products and assignments, LF elsewhere.
        #expect(try set.rawBytes("tables/subscription_offering_group_products.csv").contains(13))
        #expect(try set.readBytes("tables/user_offering_assignments.csv.gz").contains(13))
        #expect(try !set.rawBytes("tables/subscription_offerings.csv").contains(13))
    }
}
