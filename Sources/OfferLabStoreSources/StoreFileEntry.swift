import OfferLabIngest

/// What the layouts of the store files' cache entries (`CachedStoreFileReading`: the App Store's,
/// Google Play's) share: the distinct strings first, each once (products, currencies, countries
/// and most users repeat from record to record), which the records name by index; the reading's
/// counters and notes; one byte of flags, one byte of a counter or a format.
///
/// Index -1 is nil.
package struct StoreEntryStrings {
    private(set) var texts: [String] = []
    private var indices: [String: Int32] = [:]

    mutating func index(_ text: String?) -> Int32 {
        guard let text else { return -1 }
        if let index = indices[text] { return index }
        indices[text] = Int32(texts.count)
        texts.append(text)
        return Int32(texts.count - 1)
    }

    /// The table of the strings into `entry`, then `body`, whose records name them.
    func write(_ body: CacheEntryWriter, into entry: inout CacheEntryWriter) {
        entry.append(Int64(texts.count))
        for text in texts { entry.append(bytesOf: text.utf8) }
        entry.bytes += body.bytes
    }
}

extension CacheEntryWriter {
    /// A reading's counters (the non-zero ones) and its notes without their path.
    mutating func append(counts: StoreCounts, notes: [StoreLineNote], strings: inout StoreEntryStrings) {
        let counts = counts.nonZero
        append(Int64(counts.count))
        for (counter, count) in counts {
            append(UInt8(StoreCounter.allCases.firstIndex(of: counter)!))
            append(Int64(count))
        }
        append(Int64(notes.count))
        for note in notes {
            append(Int64(note.line))
            append(UInt8(StoreCounter.allCases.firstIndex(of: note.counter)!))
            append(strings.index(note.detail))
        }
    }

    mutating func append(_ format: SourceFormat) { append(UInt8(SourceFormat.allCases.firstIndex(of: format)!)) }

    /// Up to eight flags in one byte, the first in its lowest bit.
    mutating func append(flags values: Bool...) {
        append(values.enumerated().reduce(UInt8(0)) { $0 | ($1.element ? 1 << $1.offset : 0) })
    }
}

/// Reads the records of a store file's entry, each value checked: a payload of another layout
/// that got past the entry's checks is refused (`CacheEntryReader.Damaged`), never misread.
package struct StoreEntryReader {
    var entry: CacheEntryReader
    let strings: [String]

    /// A reader of `entry`'s payload after its table of distinct strings, which it reads first.
    init(readingStringsOf entry: CacheEntryReader) throws {
        var entry = entry
        let count = try entry.count()
        var strings: [String] = []
        strings.reserveCapacity(count)
        for _ in 0..<count { strings.append(String(decoding: try entry.bytesWithLength(), as: UTF8.self)) }
        self.entry = entry
        self.strings = strings
    }

    mutating func optionalString() throws -> String? {
        let index = try entry.read(Int32.self)
        if index == -1 { return nil }
        guard index >= 0, Int(index) < strings.count else { throw CacheEntryReader.Damaged() }
        return strings[Int(index)]
    }

    mutating func string() throws -> String {
        guard let text = try optionalString() else { throw CacheEntryReader.Damaged() }
        return text
    }

    /// `count` flags of one byte, the unused bits clear.
    mutating func flags(count: Int) throws -> Flags {
        let byte = try entry.read(UInt8.self)
        guard byte >> count == 0 else { throw CacheEntryReader.Damaged() }
        return Flags(byte: byte)
    }

    /// The flags of a record, read without an array (a month of records is read back).
    struct Flags {
        let byte: UInt8

        subscript(index: Int) -> Bool { byte & (1 << index) != 0 }
    }

    mutating func counter() throws -> StoreCounter {
        let index = Int(try entry.read(UInt8.self))
        guard index < StoreCounter.allCases.count else { throw CacheEntryReader.Damaged() }
        return StoreCounter.allCases[index]
    }

    mutating func format() throws -> SourceFormat {
        let index = Int(try entry.read(UInt8.self))
        guard index < SourceFormat.allCases.count else { throw CacheEntryReader.Damaged() }
        return SourceFormat.allCases[index]
    }

    /// A reading's counters and notes (`CacheEntryWriter.append(counts:notes:strings:)`), the notes
    /// as of the file at `path`.
    mutating func countsAndNotes(path: String) throws -> (counts: StoreCounts, notes: [StoreLineNote]) {
        var counts = StoreCounts()
        for _ in 0..<(try entry.count()) {
            let counter = try counter()
            counts[counter] = Int(try entry.read(Int64.self))
        }
        var notes: [StoreLineNote] = []
        for _ in 0..<(try entry.count()) {
            let line = Int(try entry.read(Int64.self))
            notes.append(StoreLineNote(path: path, line: line, counter: try counter(), detail: try string()))
        }
        return (counts, notes)
    }

    /// An optional `Int64` whose presence a flag says.
    mutating func int64(if present: Bool) throws -> Int64? { present ? try entry.read(Int64.self) : nil }
}
