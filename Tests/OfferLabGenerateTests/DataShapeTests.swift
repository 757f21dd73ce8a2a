import Foundation
import Testing

@testable import OfferLabGenerate

/// `--event-ids`, `--user-ids` and `--layout`: each shape writes its ids as it says, one to one
/// with the default shape's on the same lines, and changes nothing else.
@Suite struct DataShapeTests {
    static let users = 1200

    /// The default shape, read once for every test.
    static let defaultSet = Task {
        let set = try await GeneratedSet.make(users: users, seed: 5, fixedName: "offerlab-generate-default-shape")
        defer { set.remove() }
        return try CheckedLogs(set)
    }

    static func checked(eventIDs: EventIDShape = .uuid, userIDs: UserIDShape = .numeric, layout: LogLayout = .dailyShards) async throws
        -> (set: GeneratedSet, logs: CheckedLogs)
    {
        let set = try await GeneratedSet.make(users: users, seed: 5, eventIDs: eventIDs, userIDs: userIDs, layout: layout)
        return (set, try CheckedLogs(set))
    }

    /// Whether every field but the ids is the same.
    static func sameButIDs(_ a: CheckedEvent, _ b: CheckedEvent) -> Bool {
        a.timestamp == b.timestamp && a.event == b.event && a.productID == b.productID && a.transactionID == b.transactionID
            && a.originalTransactionID == b.originalTransactionID && a.price == b.price && a.currency == b.currency
            && a.offeringID == b.offeringID && a.testGroupID == b.testGroupID && a.environment == b.environment
    }

    /// Checks that `map` sends equal values to equal values and different ones to different ones.
    struct OneToOne {
        var forward: [String: String] = [:]
        var backward: [String: String] = [:]

        mutating func add(_ from: String, _ to: String) -> Bool {
            if forward[from, default: to] != to || backward[to, default: from] != from { return false }
            forward[from] = to
            backward[to] = from
            return true
        }
    }

    static func eventIDPattern(_ shape: EventIDShape) -> Regex<Substring> {
        switch shape {
        case .uuid: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/
        case .hex32: /[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}/
        case .ulid: /[0-7][0-9A-HJKMNP-TV-Z]{25}/
        case .integer: /1[0-9]{18}/
        case .prefixed: /evt_[0-9A-Za-z]{22}_[0-9A-Za-z]{13}/
        case .none: /(?!)/
        }
    }

    static func userIDPattern(_ shape: UserIDShape) -> Regex<Substring> {
        switch shape {
        case .numeric: /[0-9]{8,10}/
        case .shortText: /(?:00)?u[0-9a-z]{5,7}/
        case .longText: /(?:00)?usr_[0-9a-f]{32}/
        case .uuid: /(?:00)?[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/
        }
    }

    @Test(arguments: EventIDShape.allCases)
    func eventIDsAreWrittenInTheirShapeOneToOneWithTheDefaults(shape: EventIDShape) async throws {
        let expected = try await Self.defaultSet.value
        let (set, logs) = try await Self.checked(eventIDs: shape)
        defer { set.remove() }
        #expect(logs.valid.count == expected.valid.count)
        #expect(logs.malformed == expected.malformed)
        var ids = OneToOne()
        var written = 0
        for (original, shaped) in zip(expected.valid, logs.valid) {
            #expect(Self.sameButIDs(original, shaped) && original.userID == shaped.userID)
            guard let id = shaped.eventID else {
                #expect(shape == .none || original.eventID == nil)
                continue
            }
            written += 1
            #expect(id.wholeMatch(of: Self.eventIDPattern(shape)) != nil, "\(id) is not a \(shape) id")
            let originalID = try #require(original.eventID)
            let oneToOne = ids.add(originalID, id)
            #expect(oneToOne, "\(originalID) → \(id) is not one to one")
        }
        #expect((written == 0) == (shape == .none))
        // Redeliveries are there, so "one to one" was tested on equal ids too.
        #expect(ids.forward.count < written || shape == .none)
    }

    @Test(arguments: UserIDShape.allCases)
    func userIDsAreWrittenInTheirShapeOneToOneWithTheDefaults(shape: UserIDShape) async throws {
        let expected = try await Self.defaultSet.value
        let (set, logs) = try await Self.checked(userIDs: shape)
        defer { set.remove() }
        #expect(logs.valid.count == expected.valid.count)
        #expect(logs.malformed == expected.malformed)
        var users = OneToOne()
        for (original, shaped) in zip(expected.valid, logs.valid) {
            #expect(Self.sameButIDs(original, shaped) && original.eventID == shaped.eventID)
            #expect(shaped.userID.wholeMatch(of: Self.userIDPattern(shape)) != nil, "\(shaped.userID) is not a \(shape) id")
            #expect(!shaped.userIDWasInteger || shape == .numeric)
            let oneToOne = users.add(original.userID, shaped.userID)
            #expect(oneToOne, "\(original.userID) → \(shaped.userID) is not one to one")
        }
        // The "00"-prefixed quirk user stays a user of its own.
        #expect(users.forward.keys.contains { $0.hasPrefix("00") })
        if shape == .longText { #expect(logs.valid.allSatisfy { $0.userID.utf8.count == 36 || $0.userID.hasPrefix("00") }) }
    }

    @Test(arguments: [LogLayout.smallFiles, .oneFile])
    func layoutsHoldTheSameLinesInOtherFiles(layout: LogLayout) async throws {
        let expected = try await Self.defaultSet.value
        let (set, logs) = try await Self.checked(layout: layout)
        defer { set.remove() }
        #expect(logs.rawValidLines.sorted() == expected.rawValidLines.sorted())
        #expect(logs.malformed == expected.malformed)
        #expect(logs.blankLines == expected.blankLines)
        #expect(set.report.logs.files == set.logFiles.count)
        // The showcase files are beside the logs in every layout.
        let showcase = set.logFiles.filter { $0.hasPrefix("showcase/") }
        #expect(showcase.contains("showcase/malformed-0.jsonl.gz") && showcase.contains("showcase/malformed-0.csv.gz"))
        #expect(set.report.logs.showcaseFiles == showcase.count)
        let files = set.logFiles.filter { $0.hasPrefix("logs/") }
        switch layout {
        case .smallFiles:
            // Twenty files a day, for the three days and the as_of day.
            #expect(files.count == 20 * 4)
            #expect(files.contains("logs/2026/03/01/events-3-4.jsonl.gz"))
        case .oneFile:
            #expect(files == [OneFileLayout.csvPath, OneFileLayout.jsonPath])
            #expect(try set.gzipMembers(OneFileLayout.jsonPath).count > 1)
        case .dailyShards:
            Issue.record("the default layout is the reference")
        }
        // The job reads exactly these files.
        let job = try String(contentsOfFile: set.path(JobFile.name), encoding: .utf8)
        #expect(job.contains("--layout \(layout.rawValue)"))
    }
}
