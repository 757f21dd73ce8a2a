import Foundation
import Testing

@testable import OfferLabGenerate

/// Reads a table file back: header and rows, CSV (RFC 4180, quoted line breaks) or TSV
/// (`mysql --batch` escapes).
struct TableText {
    var header: [String]
    var rows: [[String?]]

    /// Column `name` of every row (nil for NULL).
    func column(_ name: String) -> [String?] {
        guard let index = header.firstIndex(of: name) else { return [] }
        return rows.map { $0[index] }
    }

    static func csv(_ text: String) -> TableText {
        var records: [[String?]] = []
        var record: [String?] = []
        var cell = ""
        var quoted = false
        var wasQuoted = false
        var characters = Array(text.unicodeScalars)[...]
        func endCell() {
            record.append(!wasQuoted && (cell.isEmpty || cell == "\\N") ? nil : cell)
            cell = ""
            wasQuoted = false
        }
        while let scalar = characters.popFirst() {
            if quoted {
                if scalar == "\"" {
                    if characters.first == "\"" {
                        characters.removeFirst()
                        cell.unicodeScalars.append("\"")
                    } else {
                        quoted = false
                    }
                } else {
                    cell.unicodeScalars.append(scalar)
                }
            } else if scalar == "\"" {
                quoted = true
                wasQuoted = true
            } else if scalar == "," {
                endCell()
            } else if scalar == "\r" && characters.first == "\n" {
                continue
            } else if scalar == "\n" {
                endCell()
                records.append(record)
                record = []
            } else {
                cell.unicodeScalars.append(scalar)
            }
        }
        if !cell.isEmpty || !record.isEmpty {
            endCell()
            records.append(record)
        }
        let header = records.first?.map { $0 ?? "" } ?? []
        return TableText(header: header, rows: Array(records.dropFirst()))
    }

    static func tsv(_ text: String) -> TableText {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        func unescape(_ field: Substring) -> String? {
            if field == "NULL" { return nil }
            var out = ""
            var escaped = false
            for scalar in field.unicodeScalars {
                if escaped {
                    switch scalar {
                    case "t": out += "\t"
                    case "n": out += "\n"
                    case "r": out += "\r"
                    case "0": out += "\0"
                    default: out.unicodeScalars.append(scalar)
                    }
                    escaped = false
                } else if scalar == "\\" {
                    escaped = true
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
            return out
        }
        let records = lines.map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(unescape) }
        return TableText(header: records.first?.map { $0 ?? "" } ?? [], rows: Array(records.dropFirst()))
    }
}

@Suite struct TableTests {
    static let required: [(file: String, columns: [String])] = [
        ("subscription_offerings.csv", ["id", "offering_id", "name", "is_active"]),
        ("subscription_offering_groups.tsv", ["id", "subscription_offering_id", "group_name", "weight"]),
        (
            "subscription_offering_group_products.csv",
            [
                "offering_group_id", "product_id", "type", "fallback_display_price", "position", "is_default",
                "badge_text", "subtitle_text",
            ]
        ),
        (
            "subscription_offering_group_copy.tsv",
            ["offering_group_id", "header_title", "header_subtitle", "cta_button_text", "supporting_text"]
        ),
        ("user_offering_assignments.csv.gz", ["user_id", "subscription_offering_id", "offering_group_id", "assigned_at"]),
    ]

    static func table(_ set: GeneratedSet, _ file: String) throws -> TableText {
        let text = String(decoding: try set.readBytes("tables/" + file), as: UTF8.self)
        return file.contains(".tsv") ? TableText.tsv(text) : TableText.csv(text)
    }

    @Test func everyTableHasTheContractColumns() async throws {
        let set = try await GeneratedSet.make(users: 50, days: 1)
        defer { set.remove() }
        for (file, columns) in Self.required {
            let table = try Self.table(set, file)
            for column in columns {
                #expect(table.header.contains(column), "\(file) lacks \(column)")
            }
            #expect(!table.rows.isEmpty)
            #expect(table.rows.allSatisfy { $0.count == table.header.count }, "\(file) has ragged rows")
        }
    }

    @Test func offeringTablesHoldTheTwoTestsWithTheirWeightsProductsAndCopy() async throws {
        let set = try await GeneratedSet.make(users: 50, days: 1)
        defer { set.remove() }
        let offerings = try Self.table(set, "subscription_offerings.csv")
        #expect(offerings.column("offering_id").contains("spring_2026_price_test"))
        #expect(offerings.column("offering_id").contains("onboarding_copy_test"))
        #expect(offerings.column("name").contains { $0?.contains(",") == true })

        let groups = try Self.table(set, "subscription_offering_groups.tsv")
        let springGroups = zip(groups.column("subscription_offering_id"), zip(groups.column("group_name"), groups.column("weight")))
            .filter { $0.0 == "1" }.map { "\($0.1.0 ?? ""):\($0.1.1 ?? "")" }
        #expect(springGroups == ["control:2", "variant_a:1", "variant_b:1"])
        let copyWeights = zip(groups.column("subscription_offering_id"), groups.column("weight")).filter { $0.0 == "2" }.map(\.1)
        #expect(copyWeights == ["50", "25", "25"])
        #expect(groups.column("description").contains { $0 == nil })
        #expect(groups.column("description").contains { $0?.contains("\t") == true })

        let products = try Self.table(set, "subscription_offering_group_products.csv")
        let subtitles = products.column("subtitle_text")
        #expect(subtitles.contains { $0?.contains(",") == true && $0?.contains("\"") == true })
        #expect(subtitles.contains { $0?.contains("\n") == true })
        #expect(subtitles.contains { $0 == nil })
        #expect(products.column("badge_text").contains { $0 == "" })
        #expect(products.column("product_id").contains("pass_3day"))
        #expect(Set(products.column("is_default").compactMap { $0?.lowercased() }) == ["0", "1", "true", "false"])

        let copy = try Self.table(set, "subscription_offering_group_copy.tsv")
        #expect(copy.column("header_subtitle").contains { $0?.contains("\n") == true })
        #expect(copy.column("supporting_text").contains { $0?.contains("\t") == true })
        #expect(copy.column("supporting_text").contains { $0?.contains("\\") == true })
        #expect(copy.column("locale").contains { $0 == nil })
    }

    @Test func assignmentsCarryTheirQuirks() async throws {
        let set = try await GeneratedSet.make(users: 3000, days: 3)
        defer { set.remove() }
        let table = try Self.table(set, "user_offering_assignments.csv.gz")
        let asOf = "2026-03-04 00:00:00"
        var rowsByUser: [String: [(offering: String, group: String, at: String)]] = [:]
        for row in table.rows {
            let user = row[1] ?? ""
            rowsByUser[user, default: []].append((row[2] ?? "", row[3] ?? "", row[4] ?? ""))
        }
        let times = table.column("assigned_at").compactMap { $0 }
        #expect(times.allSatisfy { $0.count == 19 && $0.dropFirst(10).first == " " })
        #expect(times.contains("0000-00-00 00:00:00"))
        #expect(times.contains { $0 >= asOf && $0 != "0000-00-00 00:00:00" })
        #expect(table.column("offering_group_id").contains("99"))
        #expect(table.column("subscription_offering_id").contains("77"))
        // A copy-test group (5) named under the spring test (1).
        #expect(table.rows.contains { $0[2] == "1" && $0[3] == "5" })
        let leadingZero = rowsByUser.keys.filter { $0.hasPrefix("0") }
        #expect(!leadingZero.isEmpty)
        // "00" + n is another user than n, and n exists too.
        #expect(leadingZero.contains { rowsByUser[String($0.drop { $0 == "0" })] != nil })
        let validGroups: [String: Set<String>] = ["1": ["1", "2", "3"], "2": ["4", "5", "6"]]
        var multiGroup = 0
        var duplicates = 0
        var inBoth = 0
        for rows in rowsByUser.values {
            let valid = rows.filter { validGroups[$0.offering]?.contains($0.group) == true && !$0.at.hasPrefix("0000") }
            let spring = valid.filter { $0.offering == "1" }
            if Set(spring.map(\.group)).count > 1 { multiGroup += 1 }
            for offering in ["1", "2"] {
                let groups = valid.filter { $0.offering == offering }.map(\.group)
                if groups.count > Set(groups).count { duplicates += 1 }
            }
            if Set(valid.map(\.offering)) == ["1", "2"] { inBoth += 1 }
        }
        #expect(multiGroup >= 2)
        #expect(duplicates >= 10)
        #expect(inBoth >= 50)
        // Users in neither test exist in the logs only (checked in the log tests).
    }

    @Test func assignmentsFollowTheGroupWeights() async throws {
        let set = try await GeneratedSet.make(users: 20000, days: 2)
        defer { set.remove() }
        let table = try Self.table(set, "user_offering_assignments.csv.gz")
        var counts: [String: Int] = [:]
        for row in table.rows { counts[row[3] ?? "", default: 0] += 1 }
        let control = Double(counts["1"] ?? 0)
        #expect(abs(control / Double(counts["2"] ?? 1) - 2) < 0.15)
        #expect(abs(Double(counts["2"] ?? 0) / Double(counts["3"] ?? 1) - 1) < 0.1)
        #expect(abs(Double(counts["4"] ?? 0) / Double(counts["5"] ?? 1) - 2) < 0.15)
    }
}

@Suite struct JobFileTests {
    @Test func jobFileHasTheContractKeys() async throws {
        let set = try await GeneratedSet.make(users: 20, days: 3)
        defer { set.remove() }
        let text = String(decoding: try set.rawBytes("job.yaml"), as: UTF8.self)
        let keys = text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix(" ") }
            .compactMap { $0.split(separator: ":", maxSplits: 1).first.map(String.init) }
        for key in [
            "tables", "logs", "as_of", "report_currency", "rates", "alpha", "conversion_window_days",
            "max_bad_line_ratio", "on_corrupt_file", "output", "database",
        ] {
            #expect(keys.contains(key), "job.yaml lacks \(key)")
        }
        #expect(text.contains("as_of: 2026-03-04T00:00:00Z"))
        #expect(set.report.asOf == "2026-03-04T00:00:00Z")
        #expect(text.contains("rates: {EUR: 1.08, GBP: 1.27, JPY: 0.0067}"))
        #expect(!text.contains("BRL:"))
        #expect(text.contains("report_currency: USD"))
        // 20 users: the showcase's 16 malformed lines are more than 1%, so the job allows their share.
        #expect(text.contains("max_bad_line_ratio: 0.") && text.contains("malformed of") && !text.contains("max_bad_line_ratio: 0.01\n"))
        #expect(text.contains("tables: tables/"))
        #expect(text.contains(#"  - "logs/*/*/*/*.jsonl.gz""#))
    }

    @Test func asOfFollowsStartAndDays() throws {
        let configuration = GeneratorConfiguration(
            outputDirectory: "/unused", users: 1, seed: 1, start: CivilDate(parsing: "2024-02-27")!, days: 3)
        #expect(configuration.asOfText == "2024-03-01T00:00:00Z")
    }
}
