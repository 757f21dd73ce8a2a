// Shared by every fuzz target (compiled into each one with the OfferLabIngest sources; Linux).

import Glibc

/// Stops the run when an invariant is broken: libFuzzer reports the trap as a crash and
/// saves the input that caused it.
@inline(never)
func require(_ condition: Bool, _ message: @autoclosure () -> String, line: UInt = #line) {
    if !condition { fatalError("invariant broken: \(message())", line: line) }
}

/// The fuzzer's bytes: leading bytes choose parameters, the rest is the payload.
struct FuzzInput {
    let bytes: UnsafeRawBufferPointer
    private var position = 0

    init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    }

    /// The next byte (0 once the input is used up).
    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// One of `choices`, picked by the next byte.
    mutating func pick<T>(_ choices: [T]) -> T { choices[Int(byte()) % choices.count] }

    /// Everything not consumed yet.
    var rest: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[min(position, bytes.count)...]) }
}

/// A file that targets whose code reads a path write each input to (in /dev/shm when it
/// exists, so that the runs do not wear the disk).
enum ScratchFile {
    nonisolated(unsafe) private static var paths: Set<String> = []

    /// Writes `bytes` to `offerlab-fuzz-<pid>-<name>` and returns its path.
    static func write(_ bytes: UnsafeRawBufferPointer, name: String) -> String {
        let folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        let path = "\(folder)/offerlab-fuzz-\(getpid())-\(name)"
        if paths.insert(path).inserted, paths.count == 1 {
            atexit { for path in ScratchFile.paths { unlink(path) } }
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        require(descriptor >= 0, "cannot create \(path)")
        var offset = 0
        while let base = bytes.baseAddress, offset < bytes.count {
            let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
            require(written > 0, "cannot write \(path)")
            offset += written
        }
        close(descriptor)
        return path
    }
}

/// Everything a log parser put in a record, as values, for comparing two parses. Building it
/// checks that every range lies inside the record's text and that a rejected line left an
/// empty record.
struct RecordDigest: Equatable {
    var reason: MalformedReason?
    var fields: [[UInt8]?]
    var eventType: EventType?
    var timestamp: Int64
    var price: Int64?
    var isSandbox: Bool

    init(_ reason: MalformedReason?, _ record: LogRecord) {
        self.reason = reason
        let ranges: [Range<Int>?] = [
            record.eventID, record.userID, record.eventName, record.productID, record.transactionID,
            record.originalTransactionID, record.currency, record.offeringID, record.testGroupID,
        ]
        for range in ranges {
            guard let range else { continue }
            require(
                range.lowerBound >= 0 && range.upperBound <= record.text.count,
                "range \(range) outside a text of \(record.text.count) bytes")
        }
        fields = ranges.map { $0.map { Array(record.text[$0]) } }
        eventType = record.eventType
        timestamp = record.timestamp
        price = record.price
        isSandbox = record.isSandbox
        if reason != nil {
            require(record.text.isEmpty && ranges.allSatisfy { $0 == nil || $0 == 0..<0 }, "a rejected line left fields in the record")
        } else {
            require(!(record.userID.isEmpty), "a valid event without a user")
            if let price { require(price >= 0 && record.currency != nil, "price \(price) without currency, or negative") }
        }
    }
}

/// Whether zlib finds the file's gzip data damaged or cut short.
func endsInBrokenGzip(_ path: String) -> Bool {
    do {
        try InputFileReader(path: path, inflater: .zlib).forEachChunk { _ in }
        return false
    } catch let error as IngestError {
        return error.code == .corruptGzip || error.code == .truncatedGzip
    } catch {
        return false
    }
}
