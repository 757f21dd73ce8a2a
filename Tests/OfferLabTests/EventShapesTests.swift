import Testing

@testable import OfferLab
@testable import OfferLabEvents

/// A file's shapes: each distinct shape once, ids dense in order of first appearance, every field
/// of a shape telling it apart, through the table's growth.
@Suite struct EventShapesTests {
    /// Shapes that differ in one field at a time from a base, and in their labels.
    static func shapes() -> [EventShape] {
        var shapes: [EventShape] = []
        for offering in Int32(-1)..<20 {
            for group in Int32(-1)..<5 {
                for kind in [UInt8(0), 3, EventRecord.unknownKind] {
                    for flags in 0..<4 {
                        shapes.append(
                            EventShape(
                                loggedOffering: offering, loggedGroup: group, kind: kind, isSandbox: flags & 1 != 0,
                                eventIDForm: flags & 2 != 0 ? .interned : .lowercaseUUID, hasDetails: flags == 3))
                    }
                }
            }
        }
        // The same labels in the other order, and the other forms.
        shapes.append(EventShape(loggedOffering: 4, loggedGroup: 3, kind: 0, isSandbox: false, eventIDForm: .absent, hasDetails: false))
        shapes.append(
            EventShape(loggedOffering: 3, loggedGroup: 4, kind: 0, isSandbox: false, eventIDForm: .uppercaseUUID, hasDetails: true))
        return shapes
    }

    @Test func eachDistinctShapeGetsOneDenseId() {
        let shapes = Self.shapes()
        #expect(Set(shapes).count == shapes.count)
        var table = EventShapes()
        for (index, shape) in shapes.enumerated() { #expect(table.id(of: shape) == Int32(index)) }
        // Again, in another order, after the table has grown many times: the same ids.
        for (index, shape) in shapes.enumerated().reversed() { #expect(table.id(of: shape) == Int32(index)) }
        #expect(table.all == shapes)
    }
}
