import COfferLabSystem
import Foundation
import OfferLabIngest
import OfferLabJob
import OfferLabStoreSources
import OfferLabSupport
import Synchronization

/// What a run did with the job's parsed-log cache (`cache:` in the job file).
public struct CacheUsage: Sendable, Equatable {
    public var folder: String
    /// Log files read back from the cache, and parsed and kept in it.
    public var filesReused: Int
    public var filesStored: Int
    /// Entries found damaged or truncated (their files were parsed again).
    public var entriesDiscarded: Int
    /// Entries that could not be kept (a full disk), and the first one's problem.
    public var failedWrites: Int
    public var firstWriteFailure: String?
}

/// Log files parsed by earlier runs, kept in the job's `cache` folder so that a nightly run
/// parses only the files that are new or changed: a 30-day test's run re-reads 29 days of logs
/// that have not changed since the night before.
///
/// An entry holds one file's events exactly as `LogIngest` read them (its batches, before their
/// users are mapped to the assignment table's, which changes every night), and is named after
/// what they depend on: the file's bytes (XXH64 and size; the bytes are hashed at every run,
/// so a file rewritten in place, copied or synced is recognised by its content, never by its
/// name or time), its format (from its name), `rejects_per_reason`, the slice fields its events
/// keep (a run that slices and one that does not use entries of their own), and the program itself
/// (the hash of its executable: a new build parses again). `as_of` is checked instead: an entry
/// is only written for a file with no event at or after `as_of`, and only used when its last
/// event is before the run's `as_of`. A file changed while it was read (its inode, size or
/// times) is not kept.
///
/// An entry that cannot be read back whole and unchanged (its own XXH64 is checked) is a miss:
/// the file is parsed again and the entry rewritten. Entries are written to a temporary name and
/// renamed, so a run killed while writing leaves no half entry. A write that fails (a full disk)
/// costs the next run time, never a number: the run goes on and says so once at the end. After a
/// successful run, entries no file of the run used are removed, so the folder holds about one
/// entry per log file (a parsed file takes about as much room as its gzip file).
///
/// A store file (docs/input-formats.md#store-sources-in-a-job) of a format whose readings are kept
/// (the App Store's, verified and decoded) is kept too: its entry holds the reading in the
/// format's own layout (`CachedStoreFileReading`), named after the layout's version, the file's
/// bytes, the settings its reading depends on and the program, checked whole like the others.
package final class ParsedLogCache: Sendable {
    let folder: String
    private let rejectsPerReason: Int
    let keptSliceFields: SliceFields
    let codeIdentity: UInt64
    private let usage: Mutex<CacheUsage>
    /// Entry names the run used or wrote: kept by `removeUnusedEntries`.
    private let entriesInUse = Mutex<Set<String>>([])
    /// Buffers that entries are read into and built in, reused from file to file, so that an
    /// entry's bytes land in pages already faulted in rather than fresh ones. One per file being
    /// read or written at a time; released with
    /// `releaseBuffers`.
    private let buffers = Mutex<[[UInt8]]>([])

    /// What an entry depends on besides `as_of`.
    struct Key: Sendable, Equatable {
        var contentHash: UInt64
        var contentSize: UInt64
        var format: LogFileFormat
        /// The file's inode and times when it was hashed (not part of the name).
        var file: FileIdentity
        /// The entry's file name in the folder.
        var entryName: String
    }

    /// - Throws: `OfferLabError` (`.cannotWrite`) when the folder cannot be made, or this program's
    ///   executable cannot be read.
    package init(folder: String, rejectsPerReason: Int, keptSliceFields: SliceFields = SliceFields()) throws {
        try Folders.create(folder, context: "cache")
        guard let identity = Self.executableIdentity else {
            throw OfferLabError(
                .cannotWrite, "cache: cannot read this program's executable (/proc/self/exe) to tell its builds apart",
                location: .init(path: folder, jobKey: "cache"))
        }
        self.folder = folder
        usage = Mutex(CacheUsage(folder: folder, filesReused: 0, filesStored: 0, entriesDiscarded: 0, failedWrites: 0))
        self.rejectsPerReason = rejectsPerReason
        self.keptSliceFields = keptSliceFields
        codeIdentity = identity
    }

    /// What the run did with the cache so far (`RunReport`).
    package var usageSoFar: CacheUsage { usage.withLock { $0 } }

    /// The key of the log file at `path` as it is now; nil when it cannot be read (its parsing
    /// then reports why). `past`: the key of its entry as a `history_logs` file (`PastFile`), named
    /// apart from its entry as a log file.
    func key(forLogAt path: String, past: Bool = false) -> Key? {
        guard let (hash, size, file) = Self.contentHash(ofFileAt: path) else { return nil }
        let format = LogFileFormat(fileName: path)
        var state = offerlab_xxh64_state()
        offerlab_xxh64_reset(&state, past ? 2 : 0)
        var key = Key(contentHash: hash, contentSize: size, format: format, file: file, entryName: "")
        for word in headerWords(key) {
            withUnsafeBytes(of: word.littleEndian) { offerlab_xxh64_update(&state, $0.baseAddress, $0.count) }
        }
        let name = String(offerlab_xxh64_digest(&state), radix: 16)
        key.entryName = String(repeating: "0", count: 16 - name.count) + name + Self.entrySuffix
        return key
    }

    private static let entrySuffix = CacheEntryName.suffix

    /// The batches of the file with `key`, read back for file `fileIndex` at `path`, when its
    /// entry exists, is whole, and holds events only before `asOf`; nil otherwise (a miss).
    func load(_ key: Key, fileIndex: Int, path: String, asOf: Int64) -> [EventBatch]? {
        let entryPath = (folder as NSString).appendingPathComponent(key.entryName)
        var buffer = takeBuffer()
        defer { giveBack(buffer) }
        guard let length = Self.readWhole(entryPath, into: &buffer) else { return nil }
        let loaded: (batches: [EventBatch], latestTimestamp: Int64)
        do {
            loaded = try buffer.withUnsafeBytes {
                try decode(UnsafeRawBufferPointer(rebasing: $0[..<length]), key: key, fileIndex: fileIndex, path: path)
            }
        } catch {
            usage.withLock { $0.entriesDiscarded += 1 }
            return nil
        }
        guard loaded.latestTimestamp < asOf else { return nil }
        usage.withLock { $0.filesReused += 1 }
        entriesInUse.withLock { _ = $0.insert(key.entryName) }
        return loaded.batches
    }

    /// Keeps the batches just read from the file at `path` as the entry for `key`, unless the file
    /// had events at or after `as_of` or was changed or replaced since it was hashed (its inode,
    /// size or times differ: what was parsed may not be what was hashed).
    func store(_ batches: [EventBatch], key: Key, path: String) {
        entriesInUse.withLock { _ = $0.insert(key.entryName) }
        guard batches.allSatisfy({ $0.eventsAtOrAfterAsOf == 0 }), FileIdentity(path: path) == key.file else { return }
        var entry = takeBuffer()
        defer { giveBack(entry) }
        encode(batches, key: key, into: &entry)
        write(entry, named: key.entryName)
    }

    /// Writes `entry` as the entry `name`: to a temporary file renamed over it; a failure is
    /// counted (the run goes on).
    private func write(_ entry: [UInt8], named name: String, countsAsFile: Bool = true) {
        let entryPath = (folder as NSString).appendingPathComponent(name)
        let temporaryPath = entryPath + ".tmp-\(UUID().uuidString)"
        // The first failing call's errno.
        var failure: Int32 = 0
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if descriptor < 0 {
            failure = errno
        } else {
            if !entry.withUnsafeBytes({ writeAll(descriptor, $0) }) { failure = errno }
            if close(descriptor) != 0 && failure == 0 { failure = errno }
        }
        if failure == 0 && rename(temporaryPath, entryPath) != 0 { failure = errno }
        guard failure != 0 else {
            if countsAsFile { usage.withLock { $0.filesStored += 1 } }
            return
        }
        unlink(temporaryPath)
        usage.withLock {
            $0.failedWrites += 1
            if $0.firstWriteFailure == nil { $0.firstWriteFailure = "\(entryPath): \(String(cString: strerror(failure)))" }
        }
    }

    // MARK: - The past's files

    private static let pastMagic = Array("OfferLab past file\n".utf8)

    /// The `history_logs` file with `key` (`key(forLogAt:past:)`), read back for `path`, when its
    /// entry exists, is whole, and holds events only before `asOf`; nil otherwise (a miss).
    func loadPast(_ key: Key, path: String, asOf: Int64) -> PastFile? {
        guard
            let file = readEntry(
                named: key.entryName, magic: Self.pastMagic, words: headerWords(key), decode: { try Self.pastFile(from: &$0, path: path) }),
            file.latestTimestamp < asOf
        else { return nil }
        // Counted once: a night may read a file again after its chains (`loadPastChains`), or
        // after parsing and keeping it.
        if entriesInUse.withLock({ $0.insert(key.entryName).inserted }) { usage.withLock { $0.filesReused += 1 } }
        return file
    }

    /// Keeps the `history_logs` file just read from `path` as the entry for `key`, on the rules of
    /// `store(_:key:path:)`.
    func storePast(_ file: PastFile, key: Key, path: String) {
        entriesInUse.withLock { _ = $0.insert(key.entryName) }
        guard file.eventsAtOrAfterAsOf == 0, FileIdentity(path: path) == key.file else { return }
        var entry = CacheEntryWriter(bytes: takeBuffer())
        defer { giveBack(entry.bytes) }
        Self.layOut(&entry, magic: Self.pastMagic, words: headerWords(key)) { Self.append(file, to: &$0) }
        write(entry.bytes, named: key.entryName)
    }

    /// A past file's payload: its counters, its latest event's time, its events as they are in
    /// memory and its four id tables as they are in memory (`ByteStringInterner.tables`).
    static func append(_ file: PastFile, to entry: inout CacheEntryWriter) {
        append(file.counters, to: &entry)
        entry.append(file.latestTimestamp)
        entry.appendArray(file.events)
        for interner in [file.originalTransactions, file.transactions, file.labels, file.users] { append(interner, to: &entry) }
    }

    /// A past file `append` wrote, read back for `path`.
    /// - Throws: `CacheEntryReader.Damaged` when the bytes are not one `append` wrote.
    static func pastFile(from payload: inout CacheEntryReader, path: String) throws -> PastFile {
        var file = PastFile()
        file.counters = try counters(from: &payload, path: path)
        file.latestTimestamp = try payload.read(Int64.self)
        file.events = try payload.readArray()
        file.originalTransactions = try interner(from: &payload)
        file.transactions = try interner(from: &payload)
        file.labels = try interner(from: &payload)
        file.users = try interner(from: &payload)
        return file
    }

    private static let pastChainsMagic = Array("OfferLab past chains\n".utf8)

    /// What the entry of the chains of the `history_logs` files with `keys` (in the job's order)
    /// depends on: each file's bytes, size and format, and the settings and program their entries
    /// depend on.
    private func pastChainsWords(_ keys: [Key]) -> [UInt64] {
        [UInt64(keys.count)] + keys.flatMap { [$0.contentHash, $0.contentSize, UInt64($0.format.rawValue)] }
            + [UInt64(rejectsPerReason), UInt64(keptSliceFields.rawValue), codeIdentity]
    }

    private func pastChainsEntryName(_ words: [UInt64]) -> String {
        var state = offerlab_xxh64_state()
        offerlab_xxh64_reset(&state, 3)
        for word in words { withUnsafeBytes(of: word.littleEndian) { offerlab_xxh64_update(&state, $0.baseAddress, $0.count) } }
        let name = String(offerlab_xxh64_digest(&state), radix: 16)
        return String(repeating: "0", count: 16 - name.count) + name + Self.entrySuffix
    }

    /// The chains of the `history_logs` files with `keys` at `paths`, when their entry exists, is
    /// whole, and holds events only before `asOf`; nil otherwise. Read back, they count as the
    /// files reused, and keep the files' own entries (a night whose logs overlap the past reads
    /// those, `AppPast`). A damaged entry is not counted: the files are not parsed again for it.
    func loadPastChains(_ keys: [Key], paths: [String], asOf: Int64) -> PastChains? {
        let words = pastChainsWords(keys)
        let name = pastChainsEntryName(words)
        guard
            let chains = readEntry(
                named: name, magic: Self.pastChainsMagic, words: words, countsDamage: false,
                decode: { try Self.pastChains(from: &$0, paths: paths) }),
            chains.latestTimestamp < asOf
        else { return nil }
        usage.withLock { $0.filesReused += keys.count }
        entriesInUse.withLock { inUse in
            inUse.insert(name)
            for key in keys { inUse.insert(key.entryName) }
        }
        return chains
    }

    /// Keeps `chains`, read from the `history_logs` files with `keys` (each of which the cache
    /// keeps, `storePast`), as their entry.
    func storePastChains(_ chains: PastChains, keys: [Key]) {
        let words = pastChainsWords(keys)
        let name = pastChainsEntryName(words)
        entriesInUse.withLock { _ = $0.insert(name) }
        var entry = CacheEntryWriter(bytes: takeBuffer())
        defer { giveBack(entry.bytes) }
        Self.layOut(&entry, magic: Self.pastChainsMagic, words: words) { entry in
            entry.append(Int64(chains.fileCounters.count))
            for counters in chains.fileCounters { Self.append(counters, to: &entry) }
            entry.append(Int64(chains.eventCount))
            entry.append(chains.latestTimestamp)
            entry.appendArray(chains.chains)
            entry.appendArray(chains.events)
            for interner in [chains.originalTransactions, chains.users, chains.labels] { Self.append(interner, to: &entry) }
        }
        write(entry.bytes, named: name, countsAsFile: false)
    }

    /// Chains `storePastChains` wrote, their files' rejects read back as lines of `paths`.
    /// - Throws: `CacheEntryReader.Damaged` when the bytes are not chains it wrote for as many files.
    static func pastChains(from payload: inout CacheEntryReader, paths: [String]) throws -> PastChains {
        var chains = PastChains()
        guard try payload.count() == paths.count else { throw CacheEntryReader.Damaged() }
        chains.fileCounters = try paths.map { try counters(from: &payload, path: $0) }
        chains.eventCount = Int(try payload.read(Int64.self))
        chains.latestTimestamp = try payload.read(Int64.self)
        chains.chains = try payload.readArray()
        chains.events = try payload.readArray()
        guard
            chains.chains.allSatisfy({ 0 <= $0.eventsStart && $0.eventsStart <= $0.eventsEnd && Int($0.eventsEnd) <= chains.events.count })
        else { throw CacheEntryReader.Damaged() }
        chains.originalTransactions = try interner(from: &payload)
        chains.users = try interner(from: &payload)
        chains.labels = try interner(from: &payload)
        return chains
    }

    /// An id table as it is in memory (`ByteStringInterner.tables`).
    static func append(_ interner: ByteStringInterner, to entry: inout CacheEntryWriter) {
        let tables = interner.tables
        entry.appendArray(tables.arena)
        entry.appendArray(tables.starts)
        entry.appendArray(tables.slots)
    }

    /// An id table `append(_ interner:to:)` wrote.
    static func interner(from payload: inout CacheEntryReader) throws -> ByteStringInterner {
        guard let interner = ByteStringInterner(tables: (try payload.readArray(), try payload.readArray(), try payload.readArray())) else {
            throw CacheEntryReader.Damaged()
        }
        return interner
    }

    // MARK: - Store files

    /// What the entry of a store file (docs/input-formats.md#store-sources-in-a-job) depends on:
    /// the file's bytes (XXH64 and size), what its reading depends on beside them (its format and
    /// the job's settings for it, `settings`), and the program itself. Nothing of `as_of`: a store
    /// file's reading does not depend on it (the resolution of its records does, every run).
    struct StoreFileKey: Sendable, Equatable {
        var words: [UInt64]
        /// The file's inode and times when it was hashed (not part of the name).
        var file: FileIdentity
        var entryName: String
    }

    private static let storeFileMagic = Array("OfferLab store file\n".utf8)

    /// The layout of a store file's payload, in its entry's header and name: an entry of another
    /// layout (the JSON of earlier builds) is never read as this one.
    private static let storeFileLayout: UInt64 = 2

    /// The key of the store file at `path` as it is now, read with `settings`; nil when it
    /// cannot be read (its reading then reports why).
    func key(forStoreFileAt path: String, settings: [UInt8]) -> StoreFileKey? {
        guard let (hash, size, file) = Self.contentHash(ofFileAt: path) else { return nil }
        let words = [
            Self.storeFileLayout, hash, size, settings.withUnsafeBytes { Self.hash($0) }, UInt64(settings.count), codeIdentity,
        ]
        var state = offerlab_xxh64_state()
        offerlab_xxh64_reset(&state, 1)
        for word in words { withUnsafeBytes(of: word.littleEndian) { offerlab_xxh64_update(&state, $0.baseAddress, $0.count) } }
        let name = String(offerlab_xxh64_digest(&state), radix: 16)
        return StoreFileKey(words: words, file: file, entryName: String(repeating: "0", count: 16 - name.count) + name + Self.entrySuffix)
    }

    /// What `decode` makes of the payload kept for the store file with `key`, when its entry
    /// exists, is whole, and `decode` reads its payload to the end without throwing; nil
    /// otherwise (a miss; a damaged entry is counted).
    func load<Reading>(_ key: StoreFileKey, decode: (inout CacheEntryReader) throws -> Reading) -> Reading? {
        guard let reading = readEntry(named: key.entryName, magic: Self.storeFileMagic, words: key.words, decode: decode) else {
            return nil
        }
        usage.withLock { $0.filesReused += 1 }
        entriesInUse.withLock { _ = $0.insert(key.entryName) }
        return reading
    }

    /// Keeps what reading the store file at `path` gave, written by `encode`, as the entry for
    /// `key`, unless the file was changed or replaced since it was hashed.
    func store(_ key: StoreFileKey, path: String, encode: (inout CacheEntryWriter) -> Void) {
        entriesInUse.withLock { _ = $0.insert(key.entryName) }
        guard FileIdentity(path: path) == key.file else { return }
        var entry = CacheEntryWriter(bytes: takeBuffer())
        defer { giveBack(entry.bytes) }
        Self.layOut(&entry, magic: Self.storeFileMagic, words: key.words, encode: encode)
        write(entry.bytes, named: key.entryName)
    }

    /// What `decode` makes of the payload of the entry `name`, when it exists, starts with
    /// `magic` and `words`, holds the payload its header hashes, and `decode` reads that payload
    /// to the end without throwing; nil otherwise (a damaged entry is counted, unless not
    /// `countsDamage`: an entry looked for among others).
    func readEntry<Payload>(
        named name: String, magic: [UInt8], words: [UInt64], countsDamage: Bool = true, decode: (inout CacheEntryReader) throws -> Payload
    ) -> Payload? {
        var buffer = takeBuffer()
        defer { giveBack(buffer) }
        guard let length = Self.readWhole((folder as NSString).appendingPathComponent(name), into: &buffer) else { return nil }
        let payload: Payload? = buffer.withUnsafeBytes { whole in
            var entry = CacheEntryReader(UnsafeRawBufferPointer(rebasing: whole[..<length]))
            do {
                guard try entry.bytes(count: magic.count).elementsEqual(magic) else { return nil }
                for word in words { guard try entry.read(UInt64.self) == word else { return nil } }
                let payloadHash = try entry.read(UInt64.self)
                let bytes = try entry.bytes(count: entry.remaining)
                guard Self.hash(bytes) == payloadHash else { return nil }
                var payload = CacheEntryReader(bytes)
                let decoded = try decode(&payload)
                return payload.remaining == 0 ? decoded : nil
            } catch {
                return nil
            }
        }
        if payload == nil && countsDamage { usage.withLock { $0.entriesDiscarded += 1 } }
        return payload
    }

    /// The 64-bit word at `offset` of the entry `name`, unchecked (what a whole read then checks);
    /// nil when the entry is shorter.
    func word(ofEntry name: String, at offset: Int) -> Int64? {
        let descriptor = open((folder as NSString).appendingPathComponent(name), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var word: Int64 = 0
        guard pread(descriptor, &word, 8, off_t(offset)) == 8 else { return nil }
        return Int64(littleEndian: word)
    }

    /// The payload of the entry `name`, mapped in place and checked as `readEntry` checks it (for
    /// records read a few at a time, `KeptSegment`); nil when it is missing or damaged. An entry is
    /// replaced by a rename and removed by an unlink, never written in place, so what is mapped
    /// stays as checked.
    func mappedEntry(named name: String, magic: [UInt8], words: [UInt64]) -> KeptSegment? {
        let descriptor = open((folder as NSString).appendingPathComponent(name), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        let header = magic.count + 8 * (words.count + 1)
        guard fstat(descriptor, &status) == 0, Int(status.st_size) > header,
            let base = mmap(nil, Int(status.st_size), PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED
        else { return nil }
        let (address, length) = (Int(bitPattern: base), Int(status.st_size))
        let whole = UnsafeRawBufferPointer(start: base, count: length)
        let segment = KeptSegment(bytes: UnsafeRawBufferPointer(rebasing: whole[header...])) {
            munmap(UnsafeMutableRawPointer(bitPattern: address), length)
        }
        var entry = CacheEntryReader(UnsafeRawBufferPointer(rebasing: whole[..<header]))
        let intact =
            (try? entry.bytes(count: magic.count).elementsEqual(magic) && words.allSatisfy({ try entry.read(UInt64.self) == $0 })
                && entry.read(UInt64.self) == Self.hash(segment.bytes)) ?? false
        guard intact else {
            usage.withLock { $0.entriesDiscarded += 1 }
            return nil
        }
        return segment
    }

    /// An entry's bytes: `magic`, `words`, the payload's XXH64, then the payload `encode` writes.
    private static func layOut(
        _ entry: inout CacheEntryWriter, magic: [UInt8], words: [UInt64], encode: (inout CacheEntryWriter) -> Void
    ) {
        entry.bytes.removeAll(keepingCapacity: true)
        entry.bytes.append(contentsOf: magic)
        for word in words { entry.append(word) }
        // The payload's hash goes here once it is written.
        let hashOffset = entry.bytes.count
        entry.append(UInt64(0))
        encode(&entry)
        entry.bytes.withUnsafeMutableBytes { bytes in
            let hash = Self.hash(UnsafeRawBufferPointer(rebasing: bytes[(hashOffset + 8)...]))
            bytes.storeBytes(of: hash.littleEndian, toByteOffset: hashOffset, as: UInt64.self)
        }
    }

    /// Writes the entry `magic`, `words` and `encode`'s payload, named `prefix` (at most 16 hex
    /// digits) and as many of the XXH64 of its header (which holds the payload's) as make 16: an entry whose name says what it holds, written again only when that changes
    /// (the kept results of a store night, `KeptStoreNight`). Its name; counted as no file kept.
    func writeEntryNamedByContent(
        prefix: String = "", magic: [UInt8], words: [UInt64], encode: (inout CacheEntryWriter) -> Void
    ) -> String {
        var entry = CacheEntryWriter(bytes: takeBuffer())
        defer { giveBack(entry.bytes) }
        Self.layOut(&entry, magic: magic, words: words, encode: encode)
        // The header ends with the payload's hash: hashing it names the whole entry.
        let header = magic.count + 8 * (words.count + 1)
        let name =
            prefix
            + Self.hexName(entry.bytes.withUnsafeBytes { Self.hash(UnsafeRawBufferPointer(rebasing: $0[..<header])) }).suffix(
                16 - prefix.count)
            + Self.entrySuffix
        entriesInUse.withLock { _ = $0.insert(name) }
        write(entry.bytes, named: name, countsAsFile: false)
        return name
    }

    /// Keeps the entries `names` at the end of a successful run (`removeUnusedEntries`); `reused`
    /// of them are store files whose kept results the run used, counted as files reused.
    func markInUse(_ names: [String], reused: Int = 0) {
        entriesInUse.withLock { $0.formUnion(names) }
        usage.withLock { $0.filesReused += reused }
    }

    /// The names of the entries in the folder that begin with `prefix`.
    func entryNames(withPrefix prefix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(Self.entrySuffix) }.sorted()
    }

    /// 16 hex digits, zero-padded.
    static func hexName(_ hash: UInt64) -> String {
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Frees the reused buffers (once every file is read).
    func releaseBuffers() {
        buffers.withLock { $0 = [] }
    }

    private func takeBuffer() -> [UInt8] {
        buffers.withLock { $0.popLast() } ?? []
    }

    private func giveBack(_ buffer: [UInt8]) {
        buffers.withLock { $0.append(buffer) }
    }

    /// Reads the whole file at `path` into the start of `buffer`, growing it when it is shorter
    /// (never shrinking it: its memory stays faulted in); the file's length, nil when it cannot
    /// be read.
    private static func readWhole(_ path: String, into buffer: inout [UInt8]) -> Int? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let length = Int(status.st_size)
        if buffer.count < length { buffer.append(contentsOf: repeatElement(0, count: length - buffer.count)) }
        let complete = buffer.withUnsafeMutableBytes { bytes in
            var offset = 0
            while offset < length {
                let count = read(descriptor, bytes.baseAddress! + offset, length - offset)
                if count < 0 && errno == EINTR { continue }
                // A file cut short while it is read is a damaged entry, found by `decode`.
                guard count > 0 else { return offset }
                offset += count
            }
            return offset
        }
        return complete
    }

    /// Removes the entries that no file of this run used, and temporary files an hour old (left
    /// by a run killed while writing; a younger one may be another run's, still being written):
    /// after a successful run only, so that a failed run costs the next one no parsing.
    package func removeUnusedEntries() {
        let inUse = entriesInUse.withLock { $0 }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names {
            let path = (folder as NSString).appendingPathComponent(name)
            if name.hasSuffix(".parsed") && !inUse.contains(name) {
                try? FileManager.default.removeItem(atPath: path)
            } else if name.contains(".parsed.tmp-"),
                let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                modified < Date(timeIntervalSinceNow: -3600)
            {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
    }

    // MARK: - Hashing

    /// An entry's first bytes. No layout version: entries are only read by the build that wrote
    /// them (`executableIdentity`).
    private static let magic = Array("OfferLab parsed log\n".utf8)

    /// The hash of the running executable: entries written by another build are never read.
    private static let executableIdentity: UInt64? = contentHash(ofFileAt: "/proc/self/exe")?.hash

    /// XXH64 and size of a file's bytes, read 1 MiB at a time, and the file's identity before
    /// they were read; nil when it cannot be read.
    static func contentHash(ofFileAt path: String) -> (hash: UInt64, size: UInt64, file: FileIdentity)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var state = offerlab_xxh64_state()
        offerlab_xxh64_reset(&state, 0)
        var size: UInt64 = 0
        while true {
            let count = read(descriptor, buffer, 1 << 20)
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            offerlab_xxh64_update(&state, buffer, count)
            size += UInt64(count)
        }
        return (offerlab_xxh64_digest(&state), size, FileIdentity(status))
    }

    /// What changes when a file is written to or replaced: its inode, size and times (`ctime`
    /// cannot be set back by a program).
    struct FileIdentity: Sendable, Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec
        var changed: timespec

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modified = status.st_mtim
            changed = status.st_ctim
        }

        /// The identity of the file at `path` now; nil when it is gone.
        init?(path: String) {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            self.init(status)
        }

        static func == (left: Self, right: Self) -> Bool {
            left.device == right.device && left.inode == right.inode && left.size == right.size
                && left.modified.tv_sec == right.modified.tv_sec && left.modified.tv_nsec == right.modified.tv_nsec
                && left.changed.tv_sec == right.changed.tv_sec && left.changed.tv_nsec == right.changed.tv_nsec
        }
    }

    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        var state = offerlab_xxh64_state()
        offerlab_xxh64_reset(&state, seed)
        offerlab_xxh64_update(&state, bytes.baseAddress, bytes.count)
        return offerlab_xxh64_digest(&state)
    }

    // MARK: - Entry layout

    /// An entry: the magic line, the key (content hash, size, format, rejects kept, slice fields
    /// kept, executable hash), the payload's length and XXH64, then the payload: the batches, each its counters
    /// and rejects, its records, shapes and details as they are in memory (the same executable
    /// reads them back), its three interners' strings in id order and its event id texts.
    func encode(_ batches: [EventBatch], key: Key, into buffer: inout [UInt8]) {
        var entry = CacheEntryWriter(bytes: buffer)
        buffer = []
        entry.bytes.removeAll(keepingCapacity: true)
        // Room for the arrays and about 32 bytes per string: the entry is not regrown and copied.
        entry.bytes.reserveCapacity(
            batches.reduce(4096) { size, batch in
                size + batch.records.count * MemoryLayout<EventRecord>.stride + batch.details.count * MemoryLayout<EventDetails>.stride
                    + batch.eventIDs.bytes.count + (batch.users.fileUsers.count + batch.transactions.count + batch.labels.count) * 32
            })
        entry.bytes.append(contentsOf: Self.magic)
        for word in headerWords(key) { entry.append(word) }
        // The payload's length and hash go here once it is written.
        let payloadHeader = entry.bytes.count
        entry.append(UInt64(0))
        entry.append(UInt64(0))
        let payloadStart = entry.bytes.count
        entry.append(Int64(batches.count))
        for batch in batches { Self.append(batch, to: &entry) }
        entry.bytes.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: UInt64(bytes.count - payloadStart).littleEndian, toByteOffset: payloadHeader, as: UInt64.self)
            let hash = Self.hash(UnsafeRawBufferPointer(rebasing: bytes[payloadStart...]))
            bytes.storeBytes(of: hash.littleEndian, toByteOffset: payloadHeader + 8, as: UInt64.self)
        }
        buffer = entry.bytes
    }

    /// The batches of an entry and their latest event's time.
    /// - Throws: `CacheEntryReader.Damaged` when the entry is not whole, not for `key`, or not this
    ///   executable's.
    func decode(_ bytes: UnsafeRawBufferPointer, key: Key, fileIndex: Int, path: String) throws
        -> (batches: [EventBatch], latestTimestamp: Int64)
    {
        var header = CacheEntryReader(bytes)
        guard try header.bytes(count: Self.magic.count).elementsEqual(Self.magic) else { throw CacheEntryReader.Damaged() }
        for word in headerWords(key) {
            guard try header.read(UInt64.self) == word else { throw CacheEntryReader.Damaged() }
        }
        let length = try header.read(UInt64.self)
        let payloadHash = try header.read(UInt64.self)
        guard length == UInt64(header.remaining) else { throw CacheEntryReader.Damaged() }
        let payloadBytes = try header.bytes(count: Int(length))
        guard Self.hash(payloadBytes) == payloadHash else { throw CacheEntryReader.Damaged() }

        var payload = CacheEntryReader(payloadBytes)
        var batches: [EventBatch] = []
        var latestTimestamp = Int64.min
        for _ in 0..<(try payload.count()) {
            let batch = try Self.batch(from: &payload, fileIndex: fileIndex, path: path)
            for record in batch.records { latestTimestamp = max(latestTimestamp, record.timestamp) }
            batches.append(batch)
        }
        guard payload.remaining == 0, !batches.isEmpty else { throw CacheEntryReader.Damaged() }
        return (batches, latestTimestamp)
    }

    /// Writes a batch as `encode` lays it out: its counters and rejects, its records, shapes and
    /// details as they are in memory (the same executable reads them back), its three interners'
    /// strings in id order and its event id texts.
    static func append(_ batch: EventBatch, to entry: inout CacheEntryWriter) {
        append(batch.counters, to: &entry)
        entry.appendArray(batch.records)
        entry.appendArray(batch.shapes.all)
        entry.appendArray(batch.details)
        for interner in [batch.users.fileUsers, batch.transactions, batch.labels] {
            entry.append(Int64(interner.count))
            for id in 0..<Int32(interner.count) { interner.withBytes(of: id) { entry.append(bytesOf: $0) } }
        }
        entry.appendArray(batch.eventIDs.bytes)
    }

    /// Writes a file's counters and rejects (not its skipped files: no entry is kept for one).
    static func append(_ counters: IngestCounters, to entry: inout CacheEntryWriter) {
        entry.append(Int64(counters.filesRead))
        entry.append(Int64(counters.nonBlankLines))
        entry.append(counters.compressedBytes)
        entry.append(counters.uncompressedBytes)
        entry.appendArray(counters.malformed.map(Int64.init))
        let money = counters.rejectedMoney.amounts.sorted { $0.key < $1.key }
        entry.append(Int64(counters.rejectedMoney.unreadable))
        entry.append(Int64(money.count))
        for (currency, amount) in money {
            entry.append(bytesOf: Array(currency.utf8))
            entry.append(Int64(amount.lines))
            entry.append(amount.micros)
            entry.append(amount.negativeMicros)
        }
        entry.append(Int64(counters.rejects.count))
        for reject in counters.rejects {
            entry.append(Int64(reject.line))
            entry.append(Int64(reject.reason.rawValue))
            entry.append(bytesOf: Array(reject.text.utf8))
        }
    }

    /// A batch `append` wrote, read back as file `fileIndex`'s, at `path`, its users not yet resolved.
    /// - Throws: `CacheEntryReader.Damaged` when the bytes are not one `append` wrote.
    static func batch(from payload: inout CacheEntryReader, fileIndex: Int, path: String) throws -> EventBatch {
        var batch = EventBatch(fileIndex: fileIndex)
        batch.counters = try counters(from: &payload, path: path)
        batch.records = try payload.readArray()
        for (index, shape) in (try payload.readArray() as [EventShape]).enumerated() {
            guard batch.shapes.id(of: shape) == Int32(index) else { throw CacheEntryReader.Damaged() }
        }
        batch.details = try payload.readArray()
        batch.users.fileUsers = try payload.interner()
        batch.transactions = try payload.interner()
        batch.labels = try payload.interner()
        guard let eventIDs = EventIDTexts(bytes: try payload.readArray()) else { throw CacheEntryReader.Damaged() }
        batch.eventIDs = eventIDs
        return batch
    }

    /// Counters `append(_:to:)` wrote, their rejects read back as lines of `path`.
    /// - Throws: `CacheEntryReader.Damaged` when the bytes are not counters `append` wrote.
    static func counters(from payload: inout CacheEntryReader, path: String) throws -> IngestCounters {
        var counters = IngestCounters()
        counters.filesRead = Int(try payload.read(Int64.self))
        counters.nonBlankLines = Int(try payload.read(Int64.self))
        counters.compressedBytes = try payload.read(Int64.self)
        counters.uncompressedBytes = try payload.read(Int64.self)
        let malformed: [Int64] = try payload.readArray()
        guard malformed.count == counters.malformed.count else { throw CacheEntryReader.Damaged() }
        counters.malformed = malformed.map { Int($0) }
        counters.rejectedMoney.unreadable = Int(try payload.read(Int64.self))
        for _ in 0..<(try payload.count()) {
            let currency = String(decoding: try payload.bytesWithLength(), as: UTF8.self)
            counters.rejectedMoney.amounts[currency] = RejectedMoney.Amount(
                lines: Int(try payload.read(Int64.self)), micros: try payload.read(Int64.self),
                negativeMicros: try payload.read(Int64.self))
        }
        for _ in 0..<(try payload.count()) {
            let line = Int(try payload.read(Int64.self))
            guard let reason = MalformedReason(rawValue: UInt8(truncatingIfNeeded: try payload.read(Int64.self))) else {
                throw CacheEntryReader.Damaged()
            }
            let text = String(decoding: try payload.bytesWithLength(), as: UTF8.self)
            counters.rejects.append(RejectedLine(file: path, line: line, reason: reason, text: text))
        }
        return counters
    }

    /// What an entry's header must hold to be read for `key`.
    private func headerWords(_ key: Key) -> [UInt64] {
        [
            key.contentHash, key.contentSize, UInt64(key.format.rawValue), UInt64(rejectsPerReason), UInt64(keptSliceFields.rawValue),
            codeIdentity,
        ]
    }
}

/// A store file's reading (docs/input-formats.md#store-sources-in-a-job) kept as an entry of its
/// own: `StoreSource.read` asks for it.
extension ParsedLogCache: StoreFileCache {
    package func reading<Reading: CachedStoreFileReading>(
        ofFileAt path: String, settings: [UInt8], read: () async throws -> Reading
    ) async throws -> Reading {
        guard let key = key(forStoreFileAt: path, settings: settings) else { return try await read() }
        if let kept = load(key, decode: { try Reading(entry: &$0, path: path) }) { return kept }
        let reading = try await read()
        store(key, path: path) { reading.encode(into: &$0) }
        return reading
    }
}

extension CacheEntryReader {
    /// Strings in id order, interned again in that order (so they get the same ids).
    mutating func interner() throws -> ByteStringInterner {
        let count = try count()
        var interner = ByteStringInterner(capacity: count)
        for id in 0..<count {
            guard try interner.intern(bytesWithLength()) == Int32(id) else { throw Damaged() }
        }
        return interner
    }
}
