import OfferLabIngest
import Testing

/// The taxonomy's names are written once (`EventType.staticLogName`); the parser's fast path
/// reads them back, and nothing else.
@Suite struct EventTypeTests {
    @Test func everyNameIsReadBackAsItsType() {
        for type in EventType.allCases {
            #expect(EventType(logName: type.logName) == type, "\(type)")
        }
        #expect(Set(EventType.allCases.map(\.logName)).count == EventType.allCases.count)
    }

    @Test(arguments: ["", "refunds", "Refund", "refunD", "renewa", "purchasE", "trial_star", "paywall_vie", "cancel ", "expired"])
    func aNameOffByOneByteIsNoType(name: String) {
        #expect(EventType(logName: name) == nil)
    }
}
