import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Synchronization
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabSupport
@testable import OfferLabTables
@testable import OfferLabWriters

@Suite struct PopulationTests {
    /// docs/analysis.md §1: the earliest row of a group counts; different groups exclude the user; invalid rows
    /// are counted per named offering (unknown offering: globally); rows at or after as_of are ignored.
    /// A large assignment table says how far it has got while it is read, whenever nothing was
    /// said for the reporter's interval (here none, or an hour): the sample's, 73 061 rows.
    @Test func theAssignmentTableSaysHowFarItHasGot() throws {
        let job = try JobLoader.load(path: repositoryRoot.appendingPathComponent("jobs/sample.yaml").path)
        let source = try TableSource(path: job.inputs.tablesPath)
        let catalog = try CatalogLoader.load(from: source)
        func lines(quietInterval: TimeInterval) throws -> [String] {
            let said = Mutex<[String]>([])
            let progress = ProgressReporter(quietInterval: quietInterval) { line in said.withLock { $0.append(line) } }
            _ = try Population.load(from: source, catalog: catalog, asOf: job.run.night.microseconds, progress: progress)
            return said.withLock { $0 }
        }
        let percents = try lines(quietInterval: 0).compactMap { line -> Int? in
            let pattern = /reading the assignment table \(user_offering_assignments\.csv\.gz\): (\d+) % of \d+\.\d MB\n$/
            return line.firstMatch(of: pattern).flatMap { Int($0.1) }
        }
        // One line per 4096 rows.
        #expect(percents.count == 17)
        #expect(percents == percents.sorted() && percents.allSatisfy { $0 > 0 && $0 <= 100 })
        #expect(try lines(quietInterval: 3600).isEmpty)
    }

    @Test func assignmentRulesApplyInOrder() async throws {
        var tables = TablesFixture()
        tables.assignments = [
            ("u1", "1", "10", "2026-03-02 10:00:00"), ("u1", "1", "10", "2026-03-01 09:00:00"),
            ("u2", "1", "10", "2026-03-01 00:00:00"), ("u2", "1", "11", "2026-03-02 00:00:00"),
            ("u3", "1", "11", "2026-03-05 00:00:00"), ("00123", "1", "11", "2026-03-05 00:00:00"),
            ("u4", "1", "20", "2026-03-01 00:00:00"),  // group of another offering
            ("u5", "1", "99", "2026-03-01 00:00:00"),  // unknown group
            ("u6", "7", "10", "2026-03-01 00:00:00"),  // unknown offering: global
            ("u7", "1", "10", "not a date"),  // unreadable
            (nil, "1", "10", "2026-03-01 00:00:00"),  // NULL user
            ("", "1", "10", "2026-03-01 00:00:00"),  // empty user
            ("u8", "1", "10", "2026-03-25 00:00:00"),  // after as_of: ignored
            ("u9", "2", "20", "2026-03-20 00:00:00"),  // exactly as_of: ignored
        ]
        let results = try await analyse(
            tables,
            [
                logRecord("paywall_view", user: "123", ts: "2026-03-06T00:00:00Z"),  // "123" is not "00123"
                logRecord("paywall_view", user: "u8", ts: "2026-03-06T00:00:00Z"),
                logRecord("paywall_view", user: "u2", ts: "2026-03-06T00:00:00Z"),  // multi-group: not unassigned
                logRecord("paywall_view", user: "u1", ts: "2026-03-01T08:59:59Z"),  // before 09:00: pre-assignment
            ])
        let test = try #require(results.offerings.first)
        #expect(test.groups.map(\.users) == [1, 2])
        #expect(test.quality.multiGroupUsers == 1)
        #expect(test.quality.invalidAssignments == 5)
        #expect(test.quality.preAssignmentEvents == 1)
        #expect(results.globalInvalidAssignments == 1)
        #expect(results.cleanup.unassignedEvents == 2)
    }

    /// A user is in the group of their earliest row until a row naming another group appears.
    /// A member is 24 bytes (the population is held for the whole run).
    @Test func conflictingRowsRecordWhenTheUserBecameExcluded() throws {
        #expect(MemoryLayout<Member>.stride == 24)
        let tables = TablesFixture(assignments: [
            ("a", "1", "10", "2026-03-05 00:00:00"), ("a", "1", "11", "2026-03-07 00:00:00"), ("a", "1", "10", "2026-03-03 00:00:00"),
            ("b", "1", "11", "2026-03-07 00:00:00"), ("b", "1", "10", "2026-03-05 00:00:00"), ("b", "1", "11", "2026-03-02 00:00:00"),
            ("c", "1", "11", "2026-03-04 00:00:00"), ("c", "1", "11", "2026-03-01 00:00:00"),
        ])
        let folder = try TemporaryFolder()
        try tables.write(to: folder.file("t.sqlite"))
        let source = try TableSource(path: folder.file("t.sqlite"))
        let population = try Population.load(
            from: source, catalog: try CatalogLoader.load(from: source), asOf: try #require(UTCTime.parseAsOf("2026-03-20")))
        func describe(_ user: String) throws -> String {
            let index = try #require(population.users.lookup(user))
            let membership = try #require(population.membership(offering: 0, user: index))
            return "\(membership.group) \(Timestamp.format(membership.assignedAt)) "
                + (membership.conflictingSince.map { Timestamp.format($0) } ?? "-")
        }
        #expect(try describe("a") == "0 2026-03-03T00:00:00Z 2026-03-07T00:00:00Z")
        #expect(try describe("b") == "1 2026-03-02T00:00:00Z 2026-03-05T00:00:00Z")
        #expect(try describe("c") == "1 2026-03-01T00:00:00Z -")
        #expect(population.multiGroupUsers(offering: 0) == 2)
    }

    @Test func controlGroupFollowsJobThenNameThenLowestID() async throws {
        let tables = TablesFixture()
        #expect(try await analyse(tables, [], control: "variant").offerings[0].controlGroup == 1)
        #expect(try await analyse(tables, [], control: "nonexistent").offerings[0].controlGroup == 0)
        #expect(try await analyse(tables, [], offerings: ["other"]).offerings[0].controlGroup == 0)
        #expect(try await analyse(tables, [], offerings: ["other"], control: "b").offerings[0].controlGroup == 1)
    }

    @Test func everyGroupHasARowEvenWithoutUsers() async throws {
        let results = try await analyse(TablesFixture(), [])
        #expect(results.offerings[0].groups.count == 2)
        #expect(results.offerings[0].groups.allSatisfy { $0.users == 0 })
    }
}

/// The assignment table read from a CSV file, a gzipped TSV file and SQLite gives the population
/// of a plain reading of docs/analysis.md §1, for users in one, two or three offerings, in one group or several,
/// with repeated, invalid and late rows, and more rows than the file's size suggests; a user's
/// rows are thousands of rows apart, in different batches of the thread that checks them.
@Suite struct PopulationSourceTests {
    typealias Row = (user: String?, offering: String, group: String, assignedAt: String)

    static let asOf = "2026-03-20"
    /// Offering ids 1, 2, 3 with groups 10/11, 20/21, 30/31/32.
    static let tables = TablesFixture(
        offerings: [(1, "test", "Test", true), (2, "other", "Other", false), (3, "third", "Third", true)],
        groups: [
            (10, 1, "control", 2), (11, 1, "variant", 1), (20, 2, "a", 1), (21, 2, "b", 1), (30, 3, "x", 1), (31, 3, "y", 1),
            (32, 3, "z", 1),
        ])

    /// Rows whose kinds cycle with the row number: most users have one row, some are spread
    /// over offerings and groups, out of time order, and a few rows are invalid or late.
    static let rows: [Row] = {
        let groups = [1: ["10", "11"], 2: ["20", "21"], 3: ["30", "31", "32"]]
        var rows: [Row] = []
        for index in 0..<6000 {
            let user = "u\(index % 1501)"
            let offering = 1 + (index * 7) % 3
            let group = groups[offering]![(index / 3 + index % 5) % groups[offering]!.count]
            let day = 1 + (index * 13) % 19
            let time = String(format: "2026-03-%02d %02d:%02d:00", day, (index * 5) % 24, index % 60)
            switch index % 41 {
            case 7: rows.append((user, "9", group, time))  // unknown offering
            case 11: rows.append((user, "\(offering)", "99", time))  // unknown group
            case 13: rows.append((user, offering == 1 ? "2" : "1", group, time))  // group of another offering
            case 17: rows.append((nil, "\(offering)", group, time))
            case 19: rows.append(("", "\(offering)", group, time))
            case 23: rows.append((user, "\(offering)", group, "2026-03-32 00:00:00"))
            case 29: rows.append((user, "\(offering)", group, "2026-03-25 00:00:00"))  // after as_of
            case 31: rows.append((user, "x", group, time))  // unreadable offering
            default: rows.append((user, "\(offering)", group, index % 4 == 0 ? time.replacingOccurrences(of: " ", with: "T") + "Z" : time))
            }
            // The same user again, next row: another group of the same offering, or the same group earlier.
            if index % 9 == 0 { rows.append((user, "\(offering)", index % 2 == 0 ? groups[offering]![0] : group, "2026-03-01 00:00:00")) }
            if index % 10 == 3 { rows.append((user, "\(offering)", group, "2026-03-19 23:59:59")) }
        }
        return rows
    }()

    /// docs/analysis.md §1 read plainly: per offering, users' memberships as text, then the invalid counts.
    static func expected(_ rows: [Row]) throws -> [String] {
        let asOf = try #require(UTCTime.parseAsOf(asOf))
        let groupsOf = Dictionary(grouping: tables.groups, by: \.offering).mapValues { $0.map(\.id).sorted() }
        var users: [String] = []
        var seen: Set<String> = []
        var times: [Int: [String: [Int: Int64]]] = [:]
        var invalid: [Int: Int] = [:]
        var globalInvalid = 0
        for row in rows {
            let time = Timestamp.parse(row.assignedAt)
            if let time, time >= asOf { continue }
            guard let offering = Int(row.offering), let groups = groupsOf[offering] else {
                globalInvalid += 1
                continue
            }
            guard let time, let group = Int(row.group), groups.contains(group), let user = row.user, !user.isEmpty else {
                invalid[offering, default: 0] += 1
                continue
            }
            if seen.insert(user).inserted { users.append(user) }
            times[offering, default: [:]][user, default: [:]][group] = min(times[offering]?[user]?[group] ?? .max, time)
        }
        var lines: [String] = []
        for offering in 1...3 {
            for user in users {
                guard let groupTimes = times[offering]?[user] else { continue }
                let ordered = groupTimes.sorted { ($0.value, $0.key) < ($1.value, $1.key) }
                let group = groupsOf[offering]!.firstIndex(of: ordered[0].key)!
                let since = ordered.count > 1 ? Timestamp.format(ordered[1].value) : "-"
                lines.append("\(offering) \(user) \(group) \(Timestamp.format(ordered[0].value)) \(since)")
            }
            lines.append("\(offering) invalid \(invalid[offering] ?? 0)")
        }
        lines.append("invalid \(globalInvalid) users \(users.joined(separator: ","))")
        return lines
    }

    static func describe(_ population: Population) -> [String] {
        var lines: [String] = []
        for offering in 0..<3 {
            for member in population.members[offering] {
                let membership = member.membership
                lines.append(
                    "\(offering + 1) \(population.users.string(of: member.user)) \(membership.group) \(Timestamp.format(membership.assignedAt)) "
                        + (membership.conflictingSince.map { Timestamp.format($0) } ?? "-"))
            }
            lines.append("\(offering + 1) invalid \(population.invalidAssignments[offering])")
        }
        let users = (0..<population.users.count).map { population.users.string(of: Int32($0)) }
        lines.append("invalid \(population.globalInvalidAssignments) users \(users.joined(separator: ","))")
        return lines
    }

    static func load(_ path: String) throws -> Population {
        let source = try TableSource(path: path)
        return try Population.load(from: source, catalog: try CatalogLoader.load(from: source), asOf: try #require(UTCTime.parseAsOf(asOf)))
    }

    /// A row the reader cannot split, thousands of rows in (after the checking thread has handed
    /// on several batches), fails the load with its line, as the first row would.
    @Test func aBrokenRowLateInTheTableFailsTheLoad() throws {
        let folder = try TemporaryFolder()
        try folder.write("files/subscription_offerings.csv", "id,offering_id,name,is_active\n1,test,Test,1\n")
        try folder.write(
            "files/subscription_offering_groups.csv", "id,subscription_offering_id,group_name,weight\n10,1,control,1\n11,1,variant,1\n")
        var csv = "user_id,subscription_offering_id,offering_group_id,assigned_at\n"
        for index in 0..<9000 { csv += "u\(index),1,\(10 + index % 2),2026-03-01 00:00:00\n" }
        csv += "u9000,1,10,2026-03-01 00:00:00,extra\n"
        for index in 9001..<9100 { csv += "u\(index),1,10,2026-03-01 00:00:00\n" }
        try folder.write("files/user_offering_assignments.csv", csv)
        let error = try #require(throws: OfferLabError.self) { try Self.load(folder.file("files")) }
        #expect(error.code == .badTables, "\(error)")
        #expect(error.location == .init(path: folder.file("files/user_offering_assignments.csv"), line: 9002), "\(error)")
        #expect(error.exitCode == 65)
    }

    @Test func everySourceGivesThePopulationOfTheRules() throws {
        let expected = try Self.expected(Self.rows)
        // The rules are met by the data: users in three offerings, users in several groups.
        #expect(
            expected.contains { $0.hasPrefix("3 u0 ") } && expected.contains { $0.hasPrefix("1 u0 ") }
                && expected.contains { $0.hasPrefix("2 u0 ") })
        #expect(expected.filter { !$0.hasSuffix(" -") && !$0.contains("invalid") }.count > 5)

        let folder = try TemporaryFolder()
        var tables = Self.tables
        tables.assignments = Self.rows
        try tables.write(to: folder.file("tables.sqlite"))
        #expect(Self.describe(try Self.load(folder.file("tables.sqlite"))) == expected)

        // The same tables as files: the catalog as CSV, the assignments as CSV, then as gzipped TSV.
        let database = try SQLiteDatabase(path: folder.file("tables.sqlite"), readOnly: true)
        for table in ["subscription_offerings", "subscription_offering_groups"] {
            var text = ""
            try database.prepare("SELECT * FROM \(table)").forEachRow { row in
                text +=
                    (0..<row.count).map { column -> String in
                        switch row.value(at: column) {
                        case .integer(let integer): String(integer)
                        case .real(let real): String(real)
                        case .text(let text): text
                        case .null: ""
                        }
                    }.joined(separator: ",") + "\n"
            }
            let header =
                table == "subscription_offerings" ? "id,offering_id,name,is_active" : "id,subscription_offering_id,group_name,weight"
            try folder.write("files/\(table).csv", header + "\n" + text)
        }
        let csv = Self.rows.map { row in
            [row.user.map { $0.isEmpty ? "\"\"" : $0 } ?? "", row.offering, row.group, row.assignedAt].joined(separator: ",") + "\r\n"
        }
        try folder.write(
            "files/user_offering_assignments.csv", "user_id,subscription_offering_id,offering_group_id,assigned_at\r\n" + csv.joined())
        #expect(Self.describe(try Self.load(folder.file("files"))) == expected)

        try FileManager.default.removeItem(atPath: folder.file("files/user_offering_assignments.csv"))
        let writer = try GzipWriter(path: folder.file("files/user_offering_assignments.tsv.gz"))
        try writer.write("assigned_at\tid\tuser_id\toffering_group_id\tsubscription_offering_id\n")
        for (index, row) in Self.rows.enumerated() {
            try writer.write("\(row.assignedAt)\t\(index)\t\(row.user ?? "NULL")\t\(row.group)\t\(row.offering)\n")
        }
        try writer.finish()
        #expect(Self.describe(try Self.load(folder.file("files"))) == expected)
    }
}
