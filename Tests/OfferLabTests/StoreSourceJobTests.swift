import COfferLabSystem
import Foundation
import OfferLabGenerate
import OfferLabIngest
import OfferLabStoreSources
import OfferLabTestSupport
import Testing

@testable import OfferLabEvents
@testable import OfferLabJob
@testable import OfferLabSupport
@testable import OfferLabTables

/// A job's store sources (docs/input-formats.md#store-sources-in-a-job): the `logs` items of the
/// stores' formats, the `app_store` and `revenuecat` keys, the `user_transactions` table, and the
/// night's store events `StoreSourceIngest` reads from them.
@Suite struct StoreSourceJobTests {
    static let bundleID = "com.example.app"

    /// A job folder with tables/ and `files`, and a job file whose `logs` is `logs` and which ends
    /// with `extra`.
    func job(logs: String, _ extra: String = "", files: [String: String] = [:]) throws -> (folder: TemporaryFolder, path: String) {
        let folder = try TemporaryFolder()
        try folder.write("tables/subscription_offerings.csv", "id,offering_id,name,is_active\n")
        try folder.write("logs/app.jsonl", "")
        for (name, contents) in files { try folder.write(name, contents) }
        let lines = [
            "tables: tables/", "logs: \(logs)", "as_of: 2026-03-16T00:00:00Z", "report_currency: USD", "output: out/",
            "database: out/results.sqlite", extra,
        ]
        return (folder, try folder.write("job.yaml", lines.joined(separator: "\n") + "\n"))
    }

    func loadError(_ fixture: (folder: TemporaryFolder, path: String)) throws -> OfferLabError {
        try #require(throws: OfferLabError.self) { try JobLoader.load(path: fixture.path) }
    }

    // MARK: - The job file

    @Test func storeItemsAreMergedPerFormatSortedAndWithoutRepeats() throws {
        let fixture = try job(
            logs: """
                ["logs/*.jsonl", {path: "hooks/b/*.jsonl", format: revenuecat_webhooks}, {path: "hooks/*/*.jsonl", format: revenuecat_webhooks}, {path: "export/*.csv", format: revenuecat_export}]
                """,
            files: ["hooks/b/2.jsonl": "", "hooks/a/1.jsonl": "", "hooks/b/1.jsonl": "", "export/x.csv": ""])
        let loaded = try JobLoader.load(path: fixture.path)
        let folder = fixture.folder
        #expect(loaded.inputs.logFiles == [folder.file("logs/app.jsonl")])
        #expect(loaded.inputs.logPatterns == [folder.file("logs/*.jsonl")])
        #expect(
            loaded.inputs.storeSources == [
                StoreSourceFiles(format: .revenueCatExport, patterns: [folder.file("export/*.csv")], files: [folder.file("export/x.csv")]),
                StoreSourceFiles(
                    format: .revenueCatWebhooks, patterns: [folder.file("hooks/b/*.jsonl"), folder.file("hooks/*/*.jsonl")],
                    files: [folder.file("hooks/a/1.jsonl"), folder.file("hooks/b/1.jsonl"), folder.file("hooks/b/2.jsonl")]),
            ])
        // Without the keys: every signature checked against Apple's root; RevenueCat's original id.
        #expect(
            loaded.inputs.storeSettings[AppStoreSettings.self].bundleID == nil && loaded.inputs.storeSettings[AppStoreSettings.self].verify
                && loaded.inputs.storeSettings[AppStoreSettings.self].rootCertificatePaths.isEmpty)
        #expect(loaded.inputs.storeSettings[AppStoreSettings.self].rootCertificates == [AppStoreSignatureVerifier.appleRootCAG3DER])
        #expect(loaded.inputs.storeSettings[RevenueCatSettings.self].userIDField == .originalAppUserID)
    }

    @Test func aJobOfStoreSourcesAloneHasNoLogFiles() throws {
        let fixture = try job(logs: #"[{path: "hooks/*.jsonl", format: revenuecat_webhooks}]"#, files: ["hooks/1.jsonl": ""])
        let loaded = try JobLoader.load(path: fixture.path)
        #expect(loaded.inputs.logFiles.isEmpty && loaded.inputs.storeSources.map(\.files) == [[fixture.folder.file("hooks/1.jsonl")]])
    }

    @Test func aFileOfTwoFormatsIsABadJob() throws {
        let fixture = try job(
            logs: #"["logs/*", {path: "logs/*.jsonl", format: revenuecat_webhooks}]"#)
        let error = try loadError(fixture)
        #expect(error.code == .badJob && error.exitCode == 78 && error.location.jobKey == "logs")
        #expect(
            error.message
                == "job file \(fixture.path): logs: \(fixture.folder.file("logs/app.jsonl")) is matched as format offerlab and as revenuecat_webhooks; give each file one format"
        )
    }

    @Test func aStoreGlobThatMatchesNothingIsNamed() throws {
        let fixture = try job(logs: #"["logs/*", {path: "hooks/*.jsonl", format: revenuecat_webhooks}]"#)
        let error = try loadError(fixture)
        #expect(error.code == .missingInput && error.exitCode == 78 && error.location.jobKey == "logs")
        #expect(error.message == "job file \(fixture.path): logs: the glob \(fixture.folder.file("hooks/*.jsonl")) matches no file")
    }

    @Test func appStoreNotificationsNeedTheBundleID() throws {
        let logs = #"["logs/*", {path: "apple/*.jsonl", format: app_store_notifications}]"#
        let files = ["apple/1.jsonl": ""]
        let withoutID = try job(logs: logs, files: files)
        let error = try loadError(withoutID)
        #expect(error.code == .badJob && error.exitCode == 78 && error.location.jobKey == "app_store.bundle_id")
        #expect(error.message.contains("app_store.bundle_id: required with a logs item of format app_store_notifications"))

        let withID = try job(logs: logs, "app_store: {bundle_id: \(Self.bundleID), verify: false}", files: files)
        let loaded = try JobLoader.load(path: withID.path)
        #expect(
            loaded.inputs.storeSettings[AppStoreSettings.self].bundleID == Self.bundleID
                && !loaded.inputs.storeSettings[AppStoreSettings.self].verify)
    }

    @Test func rootCertificatesAreReadRelativeToTheJobFile() throws {
        let signer = try AppStoreTestSigner(validFrom: Date(timeIntervalSince1970: 0), validUntil: Date(timeIntervalSince1970: 4e9))
        let fixture = try job(logs: #"["logs/*"]"#, "app_store: {bundle_id: x, root_certificates: [certs/test.der]}")
        try fixture.folder.write("certs/test.der", bytes: signer.rootCertificateDER)
        let loaded = try JobLoader.load(path: fixture.path)
        #expect(loaded.inputs.storeSettings[AppStoreSettings.self].rootCertificatePaths == [fixture.folder.file("certs/test.der")])
        #expect(loaded.inputs.storeSettings[AppStoreSettings.self].rootCertificates == [signer.rootCertificateDER])
    }

    @Test func anUnreadableRootCertificateIsABadJobNamingIt() throws {
        let missing = try job(logs: #"["logs/*"]"#, "app_store: {root_certificates: certs/absent.der}")
        let absent = try loadError(missing)
        let absentPath = missing.folder.file("certs/absent.der")
        #expect(absent.code == .badJob && absent.exitCode == 78)
        #expect(absent.location == .init(path: absentPath, jobKey: "app_store.root_certificates"))
        #expect(absent.message.hasPrefix("job file \(missing.path): app_store.root_certificates: cannot read \(absentPath) ("))
        #expect(!absent.message.contains("\n"))

        let text = try job(logs: #"["logs/*"]"#, "app_store: {root_certificates: [notes.txt]}", files: ["notes.txt": "not a certificate"])
        let notCertificate = try loadError(text)
        let textPath = text.folder.file("notes.txt")
        #expect(notCertificate.code == .badJob && notCertificate.exitCode == 78)
        #expect(notCertificate.location == .init(path: textPath, jobKey: "app_store.root_certificates"))
        #expect(
            notCertificate.message.hasPrefix(
                "job file \(text.path): app_store.root_certificates: \(textPath) is not an X.509 certificate (DER or PEM)"))
        #expect(!notCertificate.message.contains("\n"))
    }

    @Test(arguments: [
        ("app_store: {bundle_id: x, colour: blue}", "app_store", "unknown key 'colour' (known: bundle_id, root_certificates, verify)"),
        ("revenuecat: {user_id: x}", "revenuecat", "unknown key 'user_id' (known: user_id_field)"),
        ("app_store: com.example", "app_store", "expected a mapping of bundle_id, root_certificates, verify"),
        ("app_store: {verify: maybe}", "app_store.verify", "'maybe' must be true or false"),
        (
            "revenuecat: {user_id_field: email}", "revenuecat.user_id_field",
            "'email' is not a RevenueCat user id (known: original_app_user_id, last_seen_alias, app_user_id)"
        ),
    ])
    func aWrongStoreSettingIsABadJobNamingTheKey(extra: String, key: String, problem: String) throws {
        let fixture = try job(logs: #"["logs/*"]"#, extra)
        let error = try loadError(fixture)
        #expect(error.code == .badJob && error.exitCode == 78 && error.location.jobKey == key)
        #expect(error.message == "job file \(fixture.path): \(key): \(problem)")
    }

    @Test func theUserIDFieldChoosesRevenueCatsID() throws {
        for (value, field) in [
            ("original_app_user_id", RevenueCatUserIDField.originalAppUserID), ("last_seen_alias", .lastSeenAppUserID),
            ("app_user_id", .lastSeenAppUserID),
        ] {
            let fixture = try job(logs: #"["logs/*"]"#, "revenuecat: {user_id_field: \(value)}")
            #expect(try JobLoader.load(path: fixture.path).inputs.storeSettings[RevenueCatSettings.self].userIDField == field)
        }
    }

    // MARK: - user_transactions

    @Test func userTransactionsMapChainsToUsers() throws {
        let folder = try TemporaryFolder()
        try folder.write("tables/subscription_offerings.csv", "id,offering_id,name,is_active\n")
        let source = try TableSource(path: folder.file("tables"))
        #expect(try UserTransactions.load(from: source).isEmpty)

        try folder.write("tables/user_transactions.csv", "original_transaction_id,user_id\n1000,u-1\n2000,u-2\n1000,u-1\n")
        #expect(try UserTransactions.load(from: source) == ["1000": "u-1", "2000": "u-2"])
    }

    @Test(arguments: [
        ("user_id,original_transaction_id\nu-1,1000\n,2000\n", 3, "user_id is empty"),
        ("user_id,original_transaction_id\nu-1,\n", 2, "original_transaction_id is empty"),
        ("user_id,original_transaction_id\nu-1,1000\nu-2,1000\n", 3, "original_transaction_id 1000 belongs to u-1 and to u-2"),
    ])
    func aBadUserTransactionRowNamesTheFileAndLine(text: String, line: Int, problem: String) throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("tables/user_transactions.csv", text)
        let error = try #require(throws: OfferLabError.self) { try UserTransactions.load(from: TableSource(path: folder.file("tables"))) }
        #expect(error.code == .badTables && error.exitCode == 65 && error.location == .init(path: path, line: line))
        #expect(error.message == "tables: \(path): user_transactions line \(line): \(problem)")

        let noColumn = try folder.write("tables/user_transactions.csv", "user_id\nu-1\n")
        let missing = try #require(throws: OfferLabError.self) { try UserTransactions.load(from: TableSource(path: folder.file("tables"))) }
        #expect(missing.code == .badTables && missing.message.contains(noColumn) && missing.message.contains("original_transaction_id"))
    }

    // MARK: - The night's store events

    /// A RevenueCat webhook body.
    static func webhook(id: String, type: String = "INITIAL_PURCHASE", transaction: String, at: Int64 = 1_773_000_000_000) -> String {
        """
        {"api_version":"1.0","event":{"id":"\(id)","type":"\(type)","period_type":"NORMAL","transaction_id":"\(transaction)",\
        "original_transaction_id":"\(transaction)","product_id":"monthly","purchased_at_ms":\(at),"event_timestamp_ms":\(at),\
        "price_in_purchased_currency":9.99,"currency":"EUR","environment":"PRODUCTION","store":"APP_STORE",\
        "original_app_user_id":"rc-\(transaction)","app_user_id":"alias-\(transaction)"}}
        """
    }

    @Test func eachEventGoesToTheFileThatFirstDeliveredItsRecord() async throws {
        let files = [
            "hooks/a.jsonl": Self.webhook(id: "e1", transaction: "t1") + "\nnot json\n",
            // A retry of e1, and a renewal of its own.
            "hooks/b.jsonl": Self.webhook(id: "e1", transaction: "t1") + "\n" + Self.webhook(id: "e2", type: "RENEWAL", transaction: "t2")
                + "\n",
            // Only a retry: no event of its own.
            "hooks/c.jsonl": Self.webhook(id: "e2", type: "RENEWAL", transaction: "t2") + "\n",
        ]
        let fixture = try job(logs: #"["logs/*", {path: "hooks/*.jsonl", format: revenuecat_webhooks}]"#, files: files)
        let loaded = try JobLoader.load(path: fixture.path)
        let night = try await StoreSourceIngest.read(settings: StoreReadingSettings(loaded), userTransactions: ["t2": "server-2"], width: 2)

        let paths = ["a", "b", "c"].map { fixture.folder.file("hooks/\($0).jsonl") }
        #expect(night.files.map(\.path) == paths && night.files.allSatisfy { $0.format == .revenueCatWebhooks })
        #expect(night.files.map { $0.events.map(\.eventID) } == [["revenuecat_webhooks:t1"], ["revenuecat_webhooks:t2"], []])
        // The server's table wins over the id RevenueCat names.
        #expect(night.events.map(\.userID) == ["rc-t1", "server-2"])
        #expect(night.events.map(\.event) == [.purchase, .renewal])
        #expect(night.events.allSatisfy { $0.priceMicros == 9_990_000 && $0.currency == "EUR" })

        #expect(night.counts[.revenueCatWebhooks]?[.linesRead] == 5)
        #expect(night.counts[.revenueCatWebhooks]?[.malformedInvalidJSON] == 1)
        #expect(paths.map { night.fileCounts[$0]?[.linesRead] } == [2, 2, 1])
        #expect(night.notes == [StoreLineNote(path: paths[0], line: 2, counter: .malformedInvalidJSON, detail: "not a JSON object")])
        #expect(night.skippedFiles.isEmpty && night.signaturesVerified)
    }

    @Test func theUserIDFieldReachesTheReaders() async throws {
        let fixture = try job(
            logs: #"[{path: "hooks/*.jsonl", format: revenuecat_webhooks}]"#, "revenuecat: {user_id_field: app_user_id}",
            files: ["hooks/a.jsonl": Self.webhook(id: "e1", transaction: "t1") + "\n"])
        let night = try await StoreSourceIngest.read(
            settings: StoreReadingSettings(try JobLoader.load(path: fixture.path)), userTransactions: [:])
        #expect(night.events.map(\.userID) == ["alias-t1"])
    }

    /// A stored webhook body: a `SUBSCRIBED` notification of `transaction`, signed by `signer`.
    static func signedLine(_ signer: AppStoreTestSigner, transaction: String) throws -> String {
        let info = try signer.sign(
            #"{"transactionId":"\#(transaction)","originalTransactionId":"\#(transaction)","productId":"monthly","bundleId":"\#(bundleID)","purchaseDate":1773000000000,"signedDate":1773000000000,"price":9990,"currency":"EUR","storefront":"DEU","inAppOwnershipType":"PURCHASED","environment":"Production","appAccountToken":"7E3FB20B-4CDB-47CC-936D-99D65F608138"}"#
        )
        let payload = try signer.sign(
            #"{"notificationType":"SUBSCRIBED","notificationUUID":"n-\#(transaction)","signedDate":1773000001000,"data":{"bundleId":"\#(bundleID)","environment":"Production","signedTransactionInfo":"\#(info)"}}"#
        )
        return #"{"signedPayload":"\#(payload)"}"#
    }

    static func testSigner() throws -> AppStoreTestSigner {
        try AppStoreTestSigner(
            validFrom: Date(timeIntervalSince1970: 1_600_000_000), validUntil: Date(timeIntervalSince1970: 1_900_000_000))
    }

    /// Notifications signed by a test CA the job trusts through `root_certificates`; one signed
    /// by another CA is a bad signature with its file and line; `verify: false` takes it.
    @Test func appStoreNotificationsAreVerifiedWithTheJobsRoots() async throws {
        let trusted = try Self.testSigner()
        let stranger = try Self.testSigner()
        func line(_ signer: AppStoreTestSigner, transaction: String) throws -> String {
            try Self.signedLine(signer, transaction: transaction)
        }
        let files = ["apple/a.jsonl": try line(trusted, transaction: "1") + "\n" + line(stranger, transaction: "2") + "\n"]
        let logs = #"[{path: "apple/*.jsonl", format: app_store_notifications}]"#
        let settings = "app_store: {bundle_id: \(Self.bundleID), root_certificates: [root.der]"
        let fixture = try job(logs: logs, settings + "}", files: files)
        try fixture.folder.write("root.der", bytes: trusted.rootCertificateDER)
        let night = try await StoreSourceIngest.read(
            settings: StoreReadingSettings(try JobLoader.load(path: fixture.path)), userTransactions: [:])
        #expect(night.events.map(\.eventID) == ["app_store_notifications:1"])
        #expect(night.events.first?.userID == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        let path = fixture.folder.file("apple/a.jsonl")
        #expect(night.notes.map { "\($0.path):\($0.line) \($0.counter.rawValue)" } == ["\(path):2 malformed_bad_signature"])
        #expect(night.counts[.appStoreNotifications]?[.malformedBadSignature] == 1 && night.signaturesVerified)

        let unverified = try job(logs: logs, settings + ", verify: false}", files: files)
        try unverified.folder.write("root.der", bytes: trusted.rootCertificateDER)
        let taken = try await StoreSourceIngest.read(
            settings: StoreReadingSettings(try JobLoader.load(path: unverified.path)), userTransactions: [:])
        #expect(taken.events.map(\.eventID) == ["app_store_notifications:1", "app_store_notifications:2"])
        #expect(taken.notes.isEmpty && !taken.signaturesVerified)
    }

    @Test func anExportWithoutARequiredColumnFailsBeforeAnyFileIsRead() async throws {
        let fixture = try job(
            logs: #"[{path: "export/*.csv", format: revenuecat_export}]"#,
            files: ["export/a.csv": "store_transaction_id,renewal_number\n1,1\n"])
        let loaded = try JobLoader.load(path: fixture.path)
        let error = try await #require(throws: OfferLabError.self) {
            try await StoreSourceIngest.read(settings: StoreReadingSettings(loaded), userTransactions: [:])
        }
        #expect(error.code == .unreadableLog && error.exitCode == 65 && error.location.path == fixture.folder.file("export/a.csv"))
        #expect(error.message.hasPrefix("revenuecat_export file \(fixture.folder.file("export/a.csv"))"))
        #expect(!error.message.contains("\n"))
    }

    @Test func aCorruptStoreFileFailsOrIsSkippedAsTheJobSays() async throws {
        let files = ["hooks/a.jsonl": Self.webhook(id: "e1", transaction: "t1") + "\n"]
        let logs = #"[{path: "hooks/*", format: revenuecat_webhooks}]"#
        for policy in ["fail", "skip"] {
            let fixture = try job(logs: logs, "on_corrupt_file: \(policy)", files: files)
            let corrupt = try fixture.folder.write("hooks/b.jsonl.gz", bytes: [0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02])
            let loaded = try JobLoader.load(path: fixture.path)
            if policy == "fail" {
                let error = try await #require(throws: OfferLabError.self) {
                    try await StoreSourceIngest.read(settings: StoreReadingSettings(loaded), userTransactions: [:])
                }
                #expect(error.code == .unreadableLog && error.location.path == corrupt)
                #expect(
                    error.message.hasPrefix("revenuecat_webhooks file \(corrupt)")
                        && error.message.hasSuffix("(on_corrupt_file: skip would skip it)"))
            } else {
                let night = try await StoreSourceIngest.read(settings: StoreReadingSettings(loaded), userTransactions: [:])
                #expect(night.skippedFiles.map(\.path) == [corrupt])
                #expect(night.files.map { $0.events.count } == [1, 0])
                #expect(night.counts[.revenueCatWebhooks]?[.linesRead] == 1)
            }
        }
    }

    /// With the job's cache, an App Store file is verified and decoded once: a later night reads
    /// it back (the same night comes out) and verifies only its new files; an entry depends on the
    /// settings and is checked whole.
    @Test func keptAppStoreFilesAreNotVerifiedAgain() async throws {
        let signer = try Self.testSigner()
        let files = [
            "apple/a.jsonl": try Self.signedLine(signer, transaction: "1") + "\nnot json\n",
            "apple/b.jsonl": try Self.signedLine(signer, transaction: "2") + "\n" + Self.signedLine(signer, transaction: "1") + "\n",
        ]
        let logs = #"[{path: "apple/*.jsonl", format: app_store_notifications}]"#
        let settings = "app_store: {bundle_id: \(Self.bundleID), root_certificates: [root.der]"
        let fixture = try job(logs: logs, settings + "}\ncache: cache/", files: files)
        try fixture.folder.write("root.der", bytes: signer.rootCertificateDER)
        let loaded = try JobLoader.load(path: fixture.path)
        func night() async throws -> (StoreNight, CacheUsage) {
            let cache = try ParsedLogCache(
                folder: try #require(loaded.outputs.cachePath), rejectsPerReason: loaded.outputs.rejectsPerReason)
            return (
                try await StoreSourceIngest.read(settings: StoreReadingSettings(loaded), userTransactions: [:], cache: cache),
                cache.usageSoFar
            )
        }
        let (first, stored) = try await night()
        #expect(stored.filesStored == 2 && stored.filesReused == 0)
        let (second, reused) = try await night()
        #expect(reused.filesReused == 2 && reused.filesStored == 0)
        #expect(second.events == first.events && first.events.map(\.eventID).count == 2)
        #expect(second.notes == first.notes && second.fileCounts == first.fileCounts && second.counts == first.counts)
        #expect(second.notes.map(\.path) == [fixture.folder.file("apple/a.jsonl")])

        // A new day: only its file is read.
        try fixture.folder.write("apple/c.jsonl", try Self.signedLine(signer, transaction: "3") + "\n")
        let withNewDay = try JobLoader.load(path: fixture.path)
        let cache = try ParsedLogCache(
            folder: try #require(withNewDay.outputs.cachePath), rejectsPerReason: withNewDay.outputs.rejectsPerReason)
        let third = try await StoreSourceIngest.read(settings: StoreReadingSettings(withNewDay), userTransactions: [:], cache: cache)
        #expect(cache.usageSoFar.filesReused == 2 && cache.usageSoFar.filesStored == 1)
        #expect(third.events.map(\.eventID) == ["1", "2", "3"].map { "app_store_notifications:\($0)" })

        // Another setting is another entry; a damaged entry is read again.
        let unverified = try job(logs: logs, settings + ", verify: false}\ncache: \(try #require(loaded.outputs.cachePath))", files: files)
        try unverified.folder.write("root.der", bytes: signer.rootCertificateDER)
        let otherSettings = try JobLoader.load(path: unverified.path)
        let otherCache = try ParsedLogCache(folder: try #require(otherSettings.outputs.cachePath), rejectsPerReason: 20)
        _ = try await StoreSourceIngest.read(settings: StoreReadingSettings(otherSettings), userTransactions: [:], cache: otherCache)
        #expect(otherCache.usageSoFar.filesReused == 0 && otherCache.usageSoFar.filesStored == 2)

        let cacheFolder = try #require(loaded.outputs.cachePath)
        for name in try FileManager.default.contentsOfDirectory(atPath: cacheFolder) {
            var bytes = try fileBytes(cacheFolder + "/" + name)
            bytes[bytes.count - 2] ^= 0xff
            try Data(bytes).write(to: URL(fileURLWithPath: cacheFolder + "/" + name))
        }
        let (damaged, discarded) = try await night()
        #expect(discarded.entriesDiscarded == 2 && discarded.filesStored == 2 && discarded.filesReused == 0)
        #expect(damaged.events == first.events)
    }
}

extension StoreSourceJobTests {
    /// A kept App Store entry cut short, or holding another layout's payload (the JSON of earlier
    /// builds) with a whole header and hash, is discarded: the file is verified again and the night
    /// is the same.
    @Test(arguments: ["truncate", "other layout"])
    func aDamagedAppStoreEntryIsReadAgain(damage: String) async throws {
        let signer = try Self.testSigner()
        let files = ["apple/a.jsonl": try Self.signedLine(signer, transaction: "1") + "\nnot json\n"]
        let logs = #"[{path: "apple/*.jsonl", format: app_store_notifications}]"#
        let fixture = try job(
            logs: logs, "app_store: {bundle_id: \(Self.bundleID), root_certificates: [root.der]}\ncache: cache/", files: files)
        try fixture.folder.write("root.der", bytes: signer.rootCertificateDER)
        let loaded = try JobLoader.load(path: fixture.path)
        let folder = try #require(loaded.outputs.cachePath)
        func night() async throws -> (StoreNight, CacheUsage) {
            let cache = try ParsedLogCache(folder: folder, rejectsPerReason: loaded.outputs.rejectsPerReason)
            return (
                try await StoreSourceIngest.read(settings: StoreReadingSettings(loaded), userTransactions: [:], cache: cache),
                cache.usageSoFar
            )
        }
        let (first, _) = try await night()
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first)
        var bytes = try fileBytes(folder + "/" + name)
        // The store file entry's header: its magic line, six words, then the payload's XXH64.
        let payloadStart = "OfferLab store file\n".utf8.count + 7 * 8
        if damage == "truncate" {
            bytes.removeLast(1)
        } else {
            let payload = Array(#"{"path":"","notifications":[],"notes":[],"counts":{}}"#.utf8)
            var state = offerlab_xxh64_state()
            offerlab_xxh64_reset(&state, 0)
            offerlab_xxh64_update(&state, payload, payload.count)
            bytes =
                Array(bytes[..<(payloadStart - 8)]) + withUnsafeBytes(of: offerlab_xxh64_digest(&state).littleEndian, Array.init) + payload
        }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
        let (again, usage) = try await night()
        #expect(usage.entriesDiscarded == 1 && usage.filesStored == 1 && usage.filesReused == 0)
        #expect(again.events == first.events && again.notes == first.notes && again.counts == first.counts)
        #expect(first.events.count == 1 && first.counts[.appStoreNotifications]?[.malformedInvalidJSON] == 1)
    }
}
