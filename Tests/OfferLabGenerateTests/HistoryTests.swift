import Foundation
import Testing

@testable import OfferLabGenerate

/// The app's past (`history/`): earlier buyers of the products sold before the tests, read back
/// with Foundation's JSON parser (not the product's reader).
@Suite struct HistoryTests {
    /// One parsed line of the past.
    struct PastLine {
        var time: Date
        var user: String
        var event: String
        var product: String
        var original: String
        var price: Double?
        var file: String
    }

    static func readPast(_ set: GeneratedSet) throws -> [PastLine] {
        let iso = ISO8601DateFormatter()
        var lines: [PastLine] = []
        for file in set.allFiles() where file.hasPrefix(HistoryWriter.folder + "/") {
            for line in GeneratedSet.lines(try set.readBytes(file)).lines {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
                func text(_ key: String) throws -> String { try #require(object[key] as? String, "\(key) in \(file)") }
                let time = try #require(iso.date(from: try text("ts")))
                lines.append(
                    PastLine(
                        time: time, user: try text("user_id"), event: try text("event"), product: try text("product_id"),
                        original: try text("original_transaction_id"), price: (object["price"] as? NSNumber)?.doubleValue, file: file))
            }
        }
        return lines
    }

    @Test func earlierBuyersOfTheOldProductsRenewUntilTheEnd() async throws {
        let set = try await GeneratedSet.make(users: 400, days: 14)
        defer { set.remove() }
        let past = try Self.readPast(set)
        let files = Set(past.map(\.file))
        #expect(files.count == 12)
        #expect(files.contains("history/2025/03/buyers.jsonl.gz") && files.contains("history/2026/02/buyers.jsonl.gz"))
        #expect(set.report.logs.historyFiles == 12 && set.report.logs.historyLines == past.count)

        let start = Date(timeIntervalSince1970: Double(set.configuration.startMicros) / 1e6)
        let horizon = Date(timeIntervalSince1970: Double(set.configuration.horizonMicros) / 1e6)
        let chains = Dictionary(grouping: past, by: \.original)
        #expect(Set(past.map(\.user)).count == 120)
        #expect(chains.count == 120)
        #expect(Set(past.map(\.product)) == ["weekly_799", "monthly_1999", "yearly_5999"])
        #expect(past.allSatisfy { Int($0.user)! >= 5_000_000_001 && $0.time < horizon })
        let periods = ["weekly_799": 7.0, "monthly_1999": 30, "yearly_5999": 365]
        var renewals = 0
        for (_, chain) in chains {
            let charges = chain.filter { $0.event == "purchase" || $0.event == "renewal" }.sorted { $0.time < $1.time }
            let first = try #require(charges.first)
            #expect(charges.allSatisfy { $0.price != nil })
            #expect(first.event == "purchase" && first.time < start)
            // Its file is the month of its first charge.
            let month = first.file.split(separator: "/").dropFirst().prefix(2).joined(separator: "-")
            #expect(
                ISO8601DateFormatter.string(
                    from: first.time, timeZone: .gmt, formatOptions: [.withYear, .withMonth, .withDashSeparatorInDate]) == month)
            let period = try #require(periods[first.product]) * 86_400
            for (previous, next) in zip(charges, charges.dropFirst()) {
                #expect(next.event == "renewal")
                let gap = next.time.timeIntervalSince(previous.time)
                #expect(gap >= period && gap <= period + 3_600)
                renewals += 1
            }
            // A chain that stopped renewing says so before the end.
            if let last = charges.last, last.time.addingTimeInterval(period) < horizon {
                #expect(chain.contains { $0.event == "expire" })
            }
        }
        #expect(renewals > 120)
    }
}
