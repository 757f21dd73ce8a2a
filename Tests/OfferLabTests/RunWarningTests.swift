import Foundation
import Testing

/// What a run says on stderr, or fails for, when the job and the data disagree: money in a
/// currency without a rate, a `control` that names no group. Through the real binary.
@Suite struct RunWarningTests {
    /// The standard night plus a purchase of `u4` in USD and one of `u2` in GBP, which has no
    /// rate (offering `test`): 1 of `test`'s 4 money events.
    static func nightWithUnconvertibleMoney(job: [String: String] = [:]) throws -> NightFixture {
        try NightFixture(
            events: NightFixture.standardEvents + [
                event("purchase", user: "u4", ts: "2026-03-05T09:00:00Z", product: "monthly", transaction: "t8", price: "19.99"),
                event(
                    "purchase", user: "u2", ts: "2026-03-05T10:00:00Z", product: "weekly", transaction: "t9", price: "5", currency: "GBP"),
            ], job: job)
    }

    static let unconvertibleWarning =
        "warning: offering test: the money of 1 of 4 money events (25.00%) is left out, for want of a rate to USD: GBP 25.00% (1); give their rates (rates: {GBP: …}, or rates_file:)\n"

    @Test func moneyWithoutARateIsAWarningNamingTheCurrencyAndItsShare() throws {
        let night = try Self.nightWithUnconvertibleMoney()
        let result = try night.run()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError == Self.unconvertibleWarning)
        #expect(try night.quality("unknown_currency_events", offering: "test") == 1)
    }

    /// Currency codes in the logs are matched in any case (`eur` is EUR, whose rate the job
    /// gives); one without a rate is named once, upper-case, whatever its case in the logs, so
    /// that the advice can be followed; a text that is no code is told apart.
    @Test func currencyCodesAreMatchedInAnyCase() throws {
        let night = try NightFixture(
            events: NightFixture.standardEvents + [
                event(
                    "purchase", user: "u4", ts: "2026-03-05T09:00:00Z", product: "monthly", transaction: "t8", price: "10", currency: "eur"),
                event(
                    "purchase", user: "u2", ts: "2026-03-05T10:00:00Z", product: "weekly", transaction: "t9", price: "5", currency: "gbp"),
                event(
                    "purchase", user: "u2", ts: "2026-03-06T10:00:00Z", product: "weekly", transaction: "t10", price: "5", currency: "GBP"),
                event(
                    "purchase", user: "u1", ts: "2026-03-06T11:00:00Z", product: "weekly", transaction: "t11", price: "5", currency: "R$"),
            ])
        let result = try night.run()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardError
                == "warning: offering test: the money of 3 of 6 money events (50.00%) is left out, for want of a rate to USD: GBP 33.33% (2), R$ 16.67% (1); give their rates (rates: {GBP: …}, or rates_file:); 'R$' is no ISO 4217 code, so no rate can be given: fix the logs\n"
        )
        // u3's 19.99 EUR and u4's 10 eur, at 2 USD each.
        let variant = try #require(try night.csv("summary").first { $0.first == "test" && $0[1] == "variant" })
        let header = try night.csv("summary")[0]
        #expect(variant[try #require(header.firstIndex(of: "net_revenue"))] == "59.98")
    }

    @Test func aShareEqualToTheMaximumPassesWithTheWarning() throws {
        let night = try Self.nightWithUnconvertibleMoney(job: ["max_unconvertible_money_share": "0.25"])
        let result = try night.run()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError == Self.unconvertibleWarning)
    }

    @Test func aShareOverTheMaximumFailsTheRunAndWritesNothing() throws {
        let night = try Self.nightWithUnconvertibleMoney(job: ["max_unconvertible_money_share": "0.2499"])
        let result = try night.run()
        #expect(result.status == 65)
        #expect(
            result.standardError
                == "offerlab: error: offering test: the money of 1 of 4 money events (25.00%) is left out, for want of a rate to USD: GBP 25.00% (1); give their rates (rates: {GBP: …}, or rates_file:); over max_unconvertible_money_share 0.2499\n"
        )
        #expect(try night.outputEntries() == ["results.sqlite.lock"])
    }

    @Test func theCronWrapperPassesTheWarningOn() throws {
        let night = try Self.nightWithUnconvertibleMoney()
        let log = night.folder.file("nightly.log")
        let result = try OfferLabProcess(
            executable: "/bin/bash", [NightlyWrapperTests.wrapper, night.jobPath, log], environment: ["OFFERLAB": try offerLabBinary()]
        ).wait()
        #expect(result.status == 0)
        // A first night whose money is mostly unconvertible is unhealthy: its alert goes to stdout.
        #expect(
            result.standardOutput.split(separator: "\n").map { $0.prefix(47) } == ["alert: test variant: unhealthy: Do not act on v"],
            "\(result.standardOutput)")
        #expect(result.standardError == Self.unconvertibleWarning)
        #expect(try String(contentsOfFile: log, encoding: .utf8).contains(Self.unconvertibleWarning))
    }

    /// Before any log is read: a corrupt log file is not what the run reports.
    @Test func aControlNoAnalysedOfferingHasIsABadJob() throws {
        let night = try NightFixture(job: ["control": "contrl"])
        try Data([0x1F, 0x8B, 0x08, 0x00, 0xFF, 0xFF, 0xFF]).write(to: URL(fileURLWithPath: night.folder.file("logs/b.jsonl.gz")))
        let result = try night.run()
        #expect(result.status == 78)
        #expect(
            result.standardError
                == "offerlab: error: job file \(night.jobPath): control: no analysed offering has a group named 'contrl' (groups: test: control, variant; other: a, b)\n"
        )
    }

    @Test func offeringsWithoutTheControlAreNamedWithTheirFallback() throws {
        let night = try NightFixture(job: ["control": "a"])
        let result = try night.run()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardError
                == "warning: control: offerings without a group named 'a' fall back to control, else their lowest group id: test (control: control)\n"
        )
        #expect(
            try night.csv("summary").filter { $0.count > 2 && $0[2] == "true" }.map { [$0[0], $0[1]] } == [
                ["other", "a"], ["test", "control"],
            ])
    }
}
