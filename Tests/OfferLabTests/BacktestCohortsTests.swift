import OfferLabEvents
import OfferLabIngest
import OfferLabJob
import OfferLabProjection
import OfferLabStatistics
import OfferLabSupport
import OfferLabTables
import OfferLabTestSupport
import OfferLabVocabulary
import Testing

@testable import OfferLabAnalysis

/// The app's own track record's cuts (docs/statistics.md#the-apps-own-track-record): each knows
/// every other chain as it stood then, whether `BacktestCohorts` counted it at that cut or once
/// for every cut after it ended.
@Suite struct BacktestCohortsTests {
    @Test("Each cohort's past is every chain but its month's, as it stood at the cut, counted at that cut alone")
    func cutsKnowEachChainAsItStood() throws {
        let folder = try TemporaryFolder()
        try TablesFixture().write(to: folder.file("tables.sqlite"))
        let catalog = try CatalogLoader.load(from: try TableSource(path: folder.file("tables.sqlite")))
        let projection = ProjectionCatalog(catalog, labels: ByteStringInterner())
        let asOf = try #require(UTCTime.parseAsOf("2026-04-01"))
        let day = Microseconds.perDay
        let start = asOf - 400 * day
        var generator = SplitMix64(state: 77)
        func unit() -> Double { Double(generator.next() >> 11) / Double(UInt64(1) << 53) }

        // Weekly and monthly chains: 1–8 charges a period apart, half of them with `expires_at`;
        // a refund after the last charge in one of five; a cancel after one of the charges in two
        // of five (the renewal turned off, then kept or lapsed). Only what happened before as_of.
        var chains: [(product: Int, events: [BacktestCohorts.Event])] = []
        for index in 0..<400 {
            let productID = index % 2 == 0 ? "weekly" : "monthly"
            let product = try #require(projection.productIDs.firstIndex(of: productID))
            let period = (productID == "weekly" ? 7 : 30) * day
            let first = start + Int64(unit() * 400) * day + Int64(unit() * Double(day))
            let charges = 1 + Int(unit() * 8)
            let withExpiry = unit() < 0.5
            let cancelAfter = unit() < 0.4 ? 1 + Int(unit() * Double(charges)) : 0
            var events: [BacktestCohorts.Event] = []
            for charge in 0..<charges {
                let time = first + Int64(charge) * period
                events.append(
                    BacktestCohorts.Event(
                        time: time, expiresAt: withExpiry ? time + period + day : EventRecord.noTime, kind: .charge, amount: 9.99))
                if charge + 1 == cancelAfter {
                    events.append(BacktestCohorts.Event(time: time + 2 * day, expiresAt: EventRecord.noTime, kind: .cancel, amount: 0))
                }
            }
            if unit() < 0.2 {
                events.append(
                    BacktestCohorts.Event(time: events.last!.time + day, expiresAt: EventRecord.noTime, kind: .refund, amount: nil))
            }
            events = events.filter { $0.time < asOf }.sorted { $0.time < $1.time }
            chains.append((product, events))
        }
        var cohorts = BacktestCohorts(catalog: projection, asOf: asOf, earliest: start)
        for chain in chains { cohorts.addChain(product: chain.product, events: chain.events) }
        let ready = cohorts.ready
        #expect(ready.count >= 20)

        for cohort in ready {
            var expected = ProductPastBuilder(products: projection.products, asOf: cohort.readAt)
            for (product, events) in chains
            where events[0].time < cohort.readAt && BacktestCohorts.month(of: events[0].time) != cohort.month {
                var (charges, last, refunded, turnedOff) = (0, events[0], false, UInt64(0))
                for event in events where event.time < cohort.readAt {
                    switch event.kind {
                    case .charge: (charges, last, refunded) = (charges + 1, event, false)
                    case .refund: refunded = true
                    case .cancel: turnedOff |= 1 << UInt64(charges - 1)
                    }
                }
                expected.addChain(
                    product: product, chargeCount: charges, lastChargeTime: last.time,
                    lastExpiresAt: last.expiresAt == EventRecord.noTime ? nil : last.expiresAt, lastChargeRefunded: refunded,
                    turnedOffAfterCharge: turnedOff)
            }
            #expect(cohort.past == expected.past, "\(cohort.productID) \(cohort.monthText) day \(cohort.readDay)")
        }
    }
}
