import Testing

@testable import OfferLabStoreSources

extension StoreSourceRecords {
    /// The records with their `sourcePath` checked to be `path` (the one file read) and then
    /// cleared: for the tests that compare the facts a file gives.
    func withoutSourcePath(expecting path: String, sourceLocation: SourceLocation = #_sourceLocation) -> StoreSourceRecords {
        var records = self
        let paths = transactions.map(\.sourcePath) + refunds.map(\.sourcePath) + statusChanges.map(\.sourcePath)
        #expect(paths.allSatisfy { $0 == path }, "\(paths)", sourceLocation: sourceLocation)
        for index in records.transactions.indices { records.transactions[index].sourcePath = nil }
        for index in records.refunds.indices { records.refunds[index].sourcePath = nil }
        for index in records.statusChanges.indices { records.statusChanges[index].sourcePath = nil }
        return records
    }
}
