import OfferLabIngest
import Testing

@testable import OfferLabGenerate

/// The generator writes the pipeline's taxonomy (`EventType`), plus event types outside it that
/// the pipeline must drop as unknown.
@Suite struct EventKindTests {
    static let allKinds = (0...UInt8.max).compactMap(EventKind.init(rawValue:))

    @Test func theKnownKindsAreTheTaxonomyWithItsRules() {
        let known = Self.allKinds.filter(\.isKnown)
        #expect(known.map { "\($0.name)" } == EventType.allCases.map(\.logName))
        for (kind, type) in zip(known, EventType.allCases) {
            #expect(kind.isTransaction == type.isTransaction, "\(type)")
            #expect(kind.isCharge == type.requiresPrice, "\(type)")
        }
        #expect(Self.allKinds.filter { !$0.isKnown }.allSatisfy { kind in !EventType.allCases.map(\.logName).contains("\(kind.name)") })
    }
}
