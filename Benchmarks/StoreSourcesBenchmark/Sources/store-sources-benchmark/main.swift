// Signs NOTIFICATIONS notifications with a test chain made like Apple's (each: the outer payload,
// its transaction and its renewal info, three ES256 signatures), then decodes them: without
// verification, verified on one task, verified on one task per core, and once more as retried
// deliveries (every signature seen before).
import Foundation
import OfferLabGenerate
import OfferLabStoreSources

// `generate DIR USERS` and `read DIR`: a generated data set's notifications (GeneratedSet.swift).
if let mode = CommandLine.arguments.dropFirst().first, mode == "generate" || mode == "read" {
    try await GeneratedSet.run(Array(CommandLine.arguments.dropFirst()))
    exit(0)
}

let count = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 20_000
let cores = ProcessInfo.processInfo.activeProcessorCount
let signer = try AppStoreTestSigner(
    validFrom: Date(timeIntervalSince1970: 1_600_000_000), validUntil: Date(timeIntervalSince1970: 1_900_000_000))
let bundleID = "com.example.app"

func signedLines() throws -> [[UInt8]] {
    var lines: [[UInt8]] = []
    lines.reserveCapacity(count)
    for index in 0..<count {
        let signedDate = 1_700_000_000_000 + Int64(index) * 1000
        let transaction = try signer.sign(
            """
            {"transactionId":"\(2_000_000 + index)","originalTransactionId":"\(1_000_000 + index / 6)","bundleId":"\(bundleID)",\
            "productId":"pro.monthly","purchaseDate":\(signedDate),"expiresDate":\(signedDate + 2_592_000_000),"signedDate":\(signedDate),\
            "price":9990,"currency":"EUR","storefront":"DEU","inAppOwnershipType":"PURCHASED","environment":"Production",\
            "appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138","type":"Auto-Renewable Subscription","transactionReason":"RENEWAL"}
            """)
        let renewal = try signer.sign(
            """
            {"originalTransactionId":"\(1_000_000 + index / 6)","productId":"pro.monthly","autoRenewStatus":1,\
            "signedDate":\(signedDate),"environment":"Production"}
            """)
        let payload = try signer.sign(
            """
            {"notificationType":"DID_RENEW","notificationUUID":"\(UUID().uuidString.lowercased())","signedDate":\(signedDate),\
            "data":{"bundleId":"\(bundleID)","environment":"Production","signedTransactionInfo":"\(transaction)",\
            "signedRenewalInfo":"\(renewal)"}}
            """)
        lines.append(Array(#"{"signedPayload":"\#(payload)"}"#.utf8))
    }
    return lines
}
let lines = try signedLines()
let bytes = lines.reduce(0) { $0 + $1.count }
print("\(count) notifications, \(bytes / count) bytes each, 3 signatures each; \(cores) cores")

/// A verifier with empty caches: each timed run starts as a night does.
func freshVerifier() throws -> AppStoreSignatureVerifier {
    try AppStoreSignatureVerifier(rootCertificates: [signer.rootCertificateDER])
}

/// The CPU seconds of the process so far (all threads): on a shared machine the figure per core
/// that wall time cannot give.
func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Decodes every line on `width` tasks; returns the wall and CPU seconds taken.
func decodeAll(_ decoder: AppStoreNotificationDecoder, width: Int) async throws -> (wall: Double, cpu: Double) {
    let cpuStart = processCPUSeconds()
    let start = ContinuousClock.now
    let decoded = try await withThrowingTaskGroup(of: Int.self) { group in
        for part in 0..<width {
            group.addTask {
                var done = 0
                for index in stride(from: part, to: lines.count, by: width) {
                    _ = try await decoder.decode(lines[index])
                    done += 1
                }
                return done
            }
        }
        return try await group.reduce(0, +)
    }
    precondition(decoded == count)
    let elapsed = ContinuousClock.now - start
    return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, processCPUSeconds() - cpuStart)
}

let unverified = try await decodeAll(AppStoreNotificationDecoder(bundleID: bundleID, verifier: nil), width: 1)
let verifiedOne = try await decodeAll(AppStoreNotificationDecoder(bundleID: bundleID, verifier: try freshVerifier()), width: 1)
let decoder = AppStoreNotificationDecoder(bundleID: bundleID, verifier: try freshVerifier())
let verifiedAll = try await decodeAll(decoder, width: cores)
// Every line again with the same verifier: as retried deliveries, each signature seen before.
let delivered = try await decodeAll(decoder, width: cores)
func report(_ name: String, _ seconds: (wall: Double, cpu: Double), tasks: Int) {
    let perCPUSecond = Double(count) / seconds.cpu
    print(
        String(
            format: "%@ on %d task(s): %.2f s wall, %.2f s CPU; per core: %.0f notifications/s, %.0f signatures/s", name, tasks,
            seconds.wall, seconds.cpu, perCPUSecond, perCPUSecond * 3))
}
report("decode only", unverified, tasks: 1)
report("verified", verifiedOne, tasks: 1)
report("verified", verifiedAll, tasks: cores)
report("verified, delivered again", delivered, tasks: cores)
let perCore = Double(count) / verifiedAll.cpu
print(
    String(
        format: "3M notifications (a month for 1M users) at that rate per core: %.0f s of CPU, %.0f s on %d idle cores",
        3_000_000 / perCore,
        3_000_000 / perCore / Double(cores), cores))
