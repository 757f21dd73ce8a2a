import Foundation
import OfferLabIngest
import Testing

@testable import OfferLabGenerate

/// Reads every log line of a generated set back through the product's gzip reader and checks
/// it against an independent reading of the log format (docs/input-formats.md#purchase-logs,
/// `ContractChecker`).
struct CheckedLogs {
    var valid: [CheckedEvent] = []
    var rawValidLines: [String] = []
    var malformed: [MalformedReason: Int] = [:]
    var nonBlankLines = 0
    var blankLines = 0

    init(_ set: GeneratedSet, files: [String]? = nil) throws {
        for file in files ?? set.logFiles {
            let (lines, blank) = GeneratedSet.lines(try set.readBytes(file))
            blankLines += blank
            var header: [String]?
            for line in lines {
                let verdict: Verdict
                if file.hasSuffix(".csv.gz") {
                    let text = String(decoding: line, as: UTF8.self)
                    guard let columns = header else {
                        header = ContractChecker.splitCSV(text)
                        continue
                    }
                    verdict = ContractChecker.checkCSV(text, header: columns)
                } else {
                    verdict = ContractChecker.checkJSON(line)
                }
                nonBlankLines += 1
                switch verdict {
                case .valid(let event):
                    valid.append(event)
                    rawValidLines.append(String(decoding: line, as: UTF8.self))
                case .malformed(let reason):
                    malformed[reason, default: 0] += 1
                }
            }
        }
    }
}

@Suite(.serialized) struct LogQuirkTests {
    static let shared = Task {
        let set = try await GeneratedSet.make(users: 2500, seed: 3, days: 14, fixedName: "offerlab-generate-log-quirks")
        return (set, try CheckedLogs(set))
    }

    func loaded() async throws -> (GeneratedSet, CheckedLogs) { try await Self.shared.value }

    @Test func malformedLinesOfEveryReasonAsReported() async throws {
        let (set, logs) = try await loaded()
        #expect(logs.malformed == set.report.logs.malformed)
        // The generator writes no line over the 1 MiB limit (the ingest tests cover that reason).
        for reason in MalformedReason.allCases where reason != .lineTooLong {
            #expect((logs.malformed[reason] ?? 0) >= 1, "no \(reason.counterName) line")
        }
        let ratio = Double(set.report.logs.malformedLines) / Double(logs.nonBlankLines)
        #expect(ratio > 0 && ratio < 0.01)
        #expect(logs.nonBlankLines == set.report.logs.lines)
        #expect(logs.blankLines == set.report.logs.blankLines)
        #expect(logs.blankLines >= 1)
        let counts = set.report.logs
        #expect(counts.lines == counts.events + counts.redeliveries + counts.resends + counts.malformedLines)
    }

    /// showcase/ holds malformed lines only: the fixed ones (one or more of every reason but
    /// `line_too_long`) and the malformed copies that may name money; logs/ keeps the others.
    @Test func theShowcaseHoldsMalformedLinesOnly() async throws {
        let (set, logs) = try await loaded()
        let showcaseFiles = set.logFiles.filter { $0.hasPrefix(LogShardWriter.showcaseFolder + "/") }
        let showcase = try CheckedLogs(set, files: showcaseFiles)
        #expect(showcaseFiles.count == set.report.logs.showcaseFiles)
        #expect(showcase.valid.isEmpty)
        #expect(showcase.nonBlankLines == set.report.logs.showcaseLines)
        let fixed = Showcase.jsonLines(start: set.configuration.startMicros) + Showcase.csvLines(start: set.configuration.startMicros)
        #expect(showcase.nonBlankLines > fixed.count)  // and some of the random copies (a purchase's, a price's)
        for reason in MalformedReason.allCases where reason != .lineTooLong {
            #expect((showcase.malformed[reason] ?? 0) >= 1, "no \(reason.counterName) line in the showcase")
        }
        // The logs keep malformed lines of their own.
        let inLogs = logs.malformed.values.reduce(0, +) - showcase.nonBlankLines
        #expect(inLogs > 0)
    }

    @Test func keysComeInBothSpellings() async throws {
        let (set, logs) = try await loaded()
        let camel = logs.valid.filter(\.usedCamelCase).count
        #expect(camel == set.report.logs.camelCaseLines)
        #expect(camel > logs.valid.count / 50)
        let both = logs.valid.filter(\.hadBothSpellings)
        #expect(both.count == set.report.logs.bothSpellingLines)
        #expect(!both.isEmpty)
        // snake_case wins: the legacy camelCase value is never the one read.
        #expect(logs.valid.allSatisfy { $0.testGroupID != "legacy_group" })
    }

    @Test func everyTimestampFormIsPresent() async throws {
        let (_, logs) = try await loaded()
        let lines = logs.rawValidLines
        #expect(logs.valid.contains { $0.timestampWasInteger })
        let tsTexts = lines.compactMap { line -> String? in
            guard let range = line.range(of: #""ts":""#) ?? line.range(of: #""ts": ""#) else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "\"" })
        }
        #expect(tsTexts.contains { $0.dropFirst(10).first == "T" })
        #expect(tsTexts.contains { $0.dropFirst(10).first == " " })
        #expect(tsTexts.contains { $0.hasSuffix("Z") })
        #expect(tsTexts.contains { $0.hasSuffix("+02:00") || $0.hasSuffix("+01:00") })
        #expect(tsTexts.contains { $0.dropFirst(19).contains("-") })
        #expect(tsTexts.contains { $0.count == 19 })
        var fractionLengths = Set<Int>()
        for text in tsTexts where text.dropFirst(19).first == "." {
            fractionLengths.insert(text.dropFirst(20).prefix { $0.isNumber }.count)
        }
        #expect(fractionLengths == Set(1...9))
    }

    @Test func idsPricesAndEscapesVary() async throws {
        let (_, logs) = try await loaded()
        let lines = logs.rawValidLines
        #expect(logs.valid.contains { $0.userIDWasInteger })
        #expect(logs.valid.contains { $0.transactionIDWasInteger })
        #expect(logs.valid.contains { $0.priceWasString })
        #expect(logs.valid.contains { $0.currency == "JPY" && $0.price?.contains(".") == false })
        let currencies = Set(logs.valid.compactMap(\.currency))
        #expect(currencies == ["USD", "EUR", "GBP", "JPY", "BRL"])
        #expect(lines.contains { $0.contains(#"\ud83d\ude80"#) })
        #expect(lines.contains { $0.contains(#"\/"#) })
        #expect(lines.contains { $0.contains(#"\u00e9"#) })
        #expect(lines.contains { $0.contains(#"\""#) })
        #expect(lines.contains { $0.contains(#"\u005f"#) })
        #expect(lines.contains { $0.contains(#"{"event_id": "#) })
        #expect(lines.contains { $0.contains(#""offering_id":null"#) })
        // Escapes in known fields decode to the plain product id.
        let products = Set(logs.valid.compactMap(\.productID))
        #expect(products.isSubset(of: Set(Catalog.products.map(\.id))))
    }

    @Test func environmentsAndEventTypes() async throws {
        let (set, logs) = try await loaded()
        let sandbox = logs.valid.filter(\.isSandbox)
        #expect(sandbox.count == set.report.logs.sandboxLines)
        #expect(!sandbox.isEmpty)
        #expect(Set(sandbox.compactMap(\.environment)).count >= 2)
        let known: Set<String> = ["paywall_view", "trial_start", "purchase", "renewal", "refund", "cancel", "expire"]
        let unknown = logs.valid.filter { !known.contains($0.event) }
        #expect(unknown.count == set.report.logs.unknownTypeLines)
        #expect(!unknown.isEmpty)
        for type in known {
            #expect(logs.valid.contains { $0.event == type }, "no \(type) event")
        }
        let views = logs.valid.filter { $0.event == "paywall_view" }.count
        #expect(views > logs.valid.count / 2)
        let perUser = Double(logs.valid.count) / Double(set.configuration.users)
        // About 2 views a user (docs/generator.md, Paywall views) and the chains of the tenth who buy.
        #expect(perUser > 1.7 && perUser < 3.5)
    }

    @Test func duplicatesAndEventsAfterTheEnd() async throws {
        let (set, logs) = try await loaded()
        var seen: [String: Int] = [:]
        for event in logs.valid {
            if let id = event.eventID { seen[id, default: 0] += 1 }
        }
        let repeatedIDs = seen.values.filter { $0 > 1 }.reduce(0) { $0 + $1 - 1 }
        #expect(repeatedIDs > 0 && repeatedIDs <= set.report.logs.redeliveries)
        var transactions: [String: Set<String>] = [:]
        for event in logs.valid where event.event != "paywall_view" {
            guard let transaction = event.transactionID, let id = event.eventID else { continue }
            transactions[event.event + "/" + transaction, default: []].insert(id)
        }
        #expect(transactions.values.contains { $0.count > 1 })
        let asOf = set.configuration.asOfMicros
        #expect(logs.valid.filter { $0.timestamp >= asOf }.count == set.report.logs.afterEndLines)
        #expect(set.report.logs.afterEndLines > 0)
    }

    @Test func refundsChainsAndAttribution() async throws {
        let (set, logs) = try await loaded()
        let refunds = logs.valid.filter { $0.event == "refund" }
        #expect(refunds.contains { $0.price == nil })
        #expect(refunds.contains { $0.price != nil })
        var charges: [String: CheckedEvent] = [:]
        for event in logs.valid where event.event == "purchase" || event.event == "renewal" {
            if let transaction = event.transactionID { charges[transaction] = event }
        }
        #expect(refunds.contains { charges[$0.transactionID ?? ""] == nil }, "no orphan refund")
        let partial = refunds.filter { refund in
            guard let price = refund.price.flatMap(Double.init), let charge = charges[refund.transactionID ?? ""],
                let full = charge.price.flatMap(Double.init)
            else { return false }
            return price < full
        }
        #expect(!partial.isEmpty)
        // A renewal continues the chain of an earlier purchase.
        let purchases = logs.valid.filter { $0.event == "purchase" }
        let renewal = logs.valid.first { $0.event == "renewal" }
        #expect(renewal.map { r in purchases.contains { $0.originalTransactionID == r.originalTransactionID } } == true)
        // The client logs its offering on most events, with a few disagreeing and some absent.
        let assignments = try assignmentTable(set)
        var agree = 0
        var disagree = 0
        var absent = 0
        var unassigned = 0
        var beforeAssignment = 0
        for event in logs.valid where !event.isSandbox {
            guard let rows = assignments[event.userID] else {
                unassigned += 1
                continue
            }
            if let first = rows.map(\.at).min(), event.timestamp < first { beforeAssignment += 1 }
            guard let offering = event.offeringID, let group = event.testGroupID else {
                absent += 1
                continue
            }
            if rows.contains(where: { $0.offering == offering && $0.group == group }) { agree += 1 } else { disagree += 1 }
        }
        #expect(agree > 10 * (disagree + absent))
        #expect(disagree > 0)
        #expect(absent > 0)
        #expect(unassigned > 0)
        #expect(beforeAssignment > 0)
    }

    @Test func pricesMatchTheProductsOfTheUsersGroup() async throws {
        let (set, logs) = try await loaded()
        let assignments = try assignmentTable(set)
        var checked = 0
        for event in logs.valid where event.event == "purchase" || event.event == "renewal" {
            guard let productID = event.productID, let product = Catalog.products.first(where: { $0.id == productID }),
                let currency = Catalog.currencies.firstIndex(where: { $0.code == event.currency }),
                let price = event.price
            else {
                Issue.record("unknown product or currency in \(event)")
                continue
            }
            var expected: [UInt8] = []
            expected.appendMoney(minorUnits: product.prices[currency], exponent: Catalog.currencies[currency].exponent)
            #expect(price == String(decoding: expected, as: UTF8.self))
            // A spring-test user only buys what its group showed.
            guard let rows = assignments[event.userID], let spring = rows.first(where: { $0.offering == "spring_2026_price_test" }),
                let group = Catalog.groups.first(where: { $0.offering == Catalog.springOffering && $0.name == spring.group }),
                rows.filter({ $0.offering == "spring_2026_price_test" }).count == 1
            else { continue }
            let shown = Set(group.products.map { Catalog.products[$0.product].id })
            #expect(shown.contains(productID), "\(productID) bought in \(spring.group)")
            checked += 1
        }
        #expect(checked > 20)
    }

    /// Valid assignment rows by user id (offering id text, group name, time).
    func assignmentTable(_ set: GeneratedSet) throws -> [String: [(offering: String, group: String, at: Int64)]] {
        let table = try TableTests.table(set, "user_offering_assignments.csv.gz")
        var byUser: [String: [(offering: String, group: String, at: Int64)]] = [:]
        for row in table.rows {
            guard let user = row[1], let offeringID = row[2].flatMap(Int.init), let groupID = row[3].flatMap(Int.init),
                let offering = Catalog.offerings.first(where: { $0.tableID == offeringID }),
                let group = Catalog.groups.first(where: { $0.tableID == groupID }),
                Catalog.offerings[group.offering].tableID == offeringID,
                let at = row[4].flatMap(ContractChecker.parseTimestamp)
            else { continue }
            byUser[user, default: []].append((offering.offeringID, group.name, at))
        }
        return byUser
    }
}
