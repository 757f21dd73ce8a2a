import Foundation
import Testing

@testable import OfferLab
@testable import OfferLabEvents
@testable import OfferLabWriters

/// Money named by malformed lines is never left out in silence (docs/reliability.md, Money in
/// rejected lines): a warning on stderr and a banner of the report say how many lines and how much.
@Suite struct RejectedMoneyTests {
    static func named(_ line: String) -> RejectedMoney.Named? {
        Array(line.utf8).withUnsafeBytes { RejectedMoney.money(in: $0) }
    }

    @Test func aMalformedLineIsReadAsFarAsItCanBe() {
        // Broken JSON, its amount still readable.
        #expect(
            Self.named(#"{"ts":"2026-03-05T10:00:00Z","event":"purchase","price":1000,"currency":"usd""#)
                == .amount(currency: "USD", micros: 1_000_000_000))
        #expect(Self.named(#"{"event" : "refund", "price" : "7.99", "currency" : "EUR"}"#) == .amount(currency: "EUR", micros: 7_990_000))
        // A price that is no number, or no currency: money of an amount that cannot be read.
        #expect(Self.named(#"{"event":"purchase","price":"$1,000.00","currency":"USD"}"#) == .unreadable)
        #expect(Self.named(#"{"event":"renewal","user_id":"u"}"#) == .unreadable)
        // A negative price names its magnitude.
        // Issue 47: a negative price keeps its sign, and the warning says so.
        #expect(Self.named(#"{"event":"refund","price":-7.99,"currency":"USD"}"#) == .amount(currency: "USD", micros: -7_990_000))
        var both = RejectedMoney()
        for line in [#"{"event":"purchase","price":-7.99,"currency":"USD"}"#, #"{"event":"purchase","price":7.99,"currency":"USD"}"#] {
            Array(line.utf8).withUnsafeBytes { both.count($0) }
        }
        #expect(both.summary == "2 malformed log lines named a price or a money event: USD 15.98 (-7.99 of it as negative prices)")
        // A price on a line whose event cannot be read.
        #expect(Self.named(#"{"transaction_id":"t","price":21.99,"currency":"EUR"}"#) == .amount(currency: "EUR", micros: 21_990_000))
        // A CSV row naming a money event.
        #expect(Self.named("1772366400000,u1,purchase,7.99") == .unreadable)
        // No money.
        #expect(Self.named(#"{"ts":"bad","user_id":"u","event":"paywall_view"}"#) == nil)
        #expect(Self.named("not json at all") == nil)
        #expect(Self.named(#"{"eventual":"purchase","prices":1}"#) == nil)
        // A price on a paywall view is no money the analysis would count.
        #expect(Self.named(#"{"event":"paywall_view","price":"abc"}"#) == nil)
    }

    @Test func theRunWarnsAndTheReportSaysHowMuchMalformedLinesNamed() throws {
        let night = try NightFixture(
            events: NightFixture.standardEvents + [
                #"{"ts":"2026-03-05T10:00:00Z","user_id":"u1","event":"purchase","product_id":"p","transaction_id":"x1","price":1000,"currency":"USD""#,
                #"{"ts":"2026-03-05T10:00:00Z","user_id":"u1","event":"purchase","product_id":"p","transaction_id":"x2","price":"$1,000.00","currency":"USD"}"#,
                #"{"ts":"2026-03-05T10:00:00+0100","user_id":"u2","event":"purchase","product_id":"p","transaction_id":"x3","price":5.5,"currency":"eur"}"#,
                #"{"ts":"bad","user_id":"u2","event":"paywall_view"}"#,
            ], job: ["max_bad_line_ratio": "0.5"])
        let result = try night.run()
        #expect(result.status == 0, "\(result.standardError)")
        let named = "3 malformed log lines named a price or a money event: EUR 5.5, USD 1000, and 1 of an amount that cannot be read"
        #expect(
            result.standardError
                == "warning: \(named); left out like every malformed line, the first of each reason are listed in \(night.folder.file("out/2026-03-16/rejects.csv"))\n"
        )
        let report = try String(contentsOfFile: night.folder.file("out/2026-03-16/report.html"), encoding: .utf8)
        #expect(report.contains("Money in rejected log lines"))
        #expect(report.contains(named))
        // The report rebuilt from the database says the same.
        let rebuilt = night.folder.file("rebuilt.html")
        let rebuild = try runOfferLab(["report", "--db", night.databasePath, "--as-of", "2026-03-16", "--output", rebuilt])
        #expect(rebuild.status == 0, "\(rebuild.standardError)")
        #expect(try String(contentsOfFile: rebuilt, encoding: .utf8) == report)
    }

    @Test func withoutMoneyInMalformedLinesNothingIsSaid() throws {
        let night = try NightFixture(
            events: NightFixture.standardEvents + [#"{"ts":"bad","user_id":"u2","event":"paywall_view"}"#],
            job: ["max_bad_line_ratio": "0.5"])
        let result = try night.run()
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        #expect(
            !(try String(contentsOfFile: night.folder.file("out/2026-03-16/report.html"), encoding: .utf8)).contains("Money in rejected"))
    }
}
