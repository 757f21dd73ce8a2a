import OfferLabIngest
import OfferLabStatistics

/// Writes the log files of one shard of users (user index ≡ shard mod `shardCount`) for every
/// day of the period: `logs/YYYY/MM/DD/events-<shard>.jsonl.gz` (or `.csv.gz` on some days);
/// and the shard's malformed lines that name money, with the fixed showcase, in
/// `showcase/malformed-<shard>.jsonl.gz` / `.csv.gz` (`showcaseFolder`).
///
/// A shard's files depend only on its users, so shards can be written in parallel and the
/// bytes do not depend on the number of threads. Memory: one `LogFile` per day.
struct LogShardWriter {
    let configuration: GeneratorConfiguration
    let shard: Int
    let shardCount: Int
    /// Files per (day, part of the shard): `days + 1` times `layout.partsPerShard`.
    private var files: [LogFile?]
    /// The shard's showcase files: JSON Lines, then CSV.
    private var showcaseFiles: [LogFile?] = [nil, nil]
    private var counts = LogCounts()
    private var encoder: LineEncoder
    private var simulator: UserSimulator
    /// The store's files, when the data set writes its facts in a store's form.
    private var store: (any StoreFactWriter)?
    /// Rows of the server's `user_transactions` table the store's form needs (App Store).
    private(set) var userTransactionRows: [UInt8] = []

    /// About one line in 1 250 is an extra malformed copy of an event (plus the fixed showcase).
    static let malformedChance = 0.0008
    static let blankLineChance = 0.001
    /// Uncompressed bytes per gzip member in multi-member files.
    static let memberSize = 4 << 20

    /// - Parameter store: the writer of the store's files, when the data set writes its facts in
    ///   a store's form.
    init(configuration: GeneratorConfiguration, shard: Int, shardCount: Int, store: (any StoreFactWriter)?) {
        self.configuration = configuration
        self.shard = shard
        self.shardCount = shardCount
        files = Array(repeating: nil, count: (configuration.days + 1) * configuration.shape.layout.partsPerShard)
        encoder = LineEncoder(eventIDs: configuration.shape.eventIDs)
        simulator = UserSimulator(configuration: configuration)
        self.store = store
    }

    /// The folder of a day, relative to the output folder: `logs/YYYY/MM/DD`.
    static func dayFolder(_ date: CivilDate) -> String {
        let text = date.description
        return "logs/" + text.replacingOccurrences(of: "-", with: "/")
    }

    /// Where the `one-file` layout writes each daily shard before `OneFileLayout` joins them.
    static let partsFolder = "logs/parts"

    /// Whether the file of (day, shard) is a CSV log, and its other quirks: fixed patterns,
    /// so that the first day already has one file of each kind. Every layout keeps a line's
    /// format, so the lines and their numbers do not depend on the layout.
    static func isCSV(day: Int, shard: Int) -> Bool { (day + shard) % 5 == 2 }
    static func usesCRLF(day: Int, shard: Int) -> Bool { (day + 2 * shard) % 3 == 0 }
    static func isMultiMember(day: Int, shard: Int) -> Bool { (3 * day + shard) % 4 == 1 }
    static func omitsFinalNewline(day: Int, shard: Int) -> Bool { (5 * day + shard) % 7 == 3 }

    /// The file of (day, shard, part), relative to the output folder: `events-<shard>` in the
    /// day's folder, `events-<shard>-<part>` in the `small-files` layout.
    static func relativePath(day: Int, shard: Int, part: Int, configuration: GeneratorConfiguration) -> String {
        let date = CivilDate(daysSinceEpoch: configuration.start.daysSinceEpoch + Int64(day))
        let folder =
            configuration.shape.layout == .oneFile
            ? partsFolder + "/" + dayFolder(date).dropFirst("logs/".count) : dayFolder(date)
        let stem = configuration.shape.layout == .smallFiles ? "events-\(shard)-\(part)" : "events-\(shard)"
        return folder + "/" + stem + (isCSV(day: day, shard: shard) ? ".csv.gz" : ".jsonl.gz")
    }

    /// The folder of the malformed lines a job reads only when it lists it (beside `logs/`, outside
    /// a `logs/…` glob): the fixed showcase and every malformed copy of an event that names money,
    /// so that a job on `logs/` alone runs without the warning such lines raise
    /// (docs/reliability.md#money-in-rejected-lines), and a job that adds this folder shows it.
    static let showcaseFolder = "showcase"

    /// The showcase file of a shard, relative to the output folder.
    static func showcasePath(shard: Int, format: LogFile.Format) -> String {
        showcaseFolder + "/malformed-\(shard)" + (format == .csv ? ".csv.gz" : ".jsonl.gz")
    }

    /// Whether a malformed copy of `event` may name money as the run reads a broken line: a money
    /// event, or a price when the event cannot be read (docs/reliability.md, Money in rejected
    /// lines). Such a copy goes to the showcase; a cut line with a price goes too, wherever the
    /// cut fell.
    static func mayNameMoney(_ event: SimEvent, malformation: Malformation, line: [UInt8]) -> Bool {
        if event.kind == .purchase || event.kind == .renewal || event.kind == .refund { return true }
        let eventUnreadable: Bool
        switch malformation.shape {
        case .truncated: eventUnreadable = true
        case .notAnObject: eventUnreadable = false
        case .broken: eventUnreadable = malformation.breakage.omitEvent
        }
        return eventUnreadable && line.firstRange(of: Array(#""price""#.utf8)) != nil
    }

    /// The part of its daily shard a user's lines go to.
    private func part(ofUser index: Int) -> Int { (index / shardCount) % configuration.shape.layout.partsPerShard }

    private mutating func file(day: Int, part: Int) -> LogFile {
        let slot = day * configuration.shape.layout.partsPerShard + part
        if let file = files[slot] { return file }
        // The one-file layout's pieces are joined as they are: each ends its last line, with the
        // same line end (a CSV reader such as DuckDB's guesses the dialect from the first rows),
        // and the CSV header is written once, before them.
        let joined = configuration.shape.layout == .oneFile
        let file = LogFile(
            path: configuration.outputDirectory + "/" + Self.relativePath(day: day, shard: shard, part: part, configuration: configuration),
            format: Self.isCSV(day: day, shard: shard) ? .csv : .jsonLines,
            usesCRLF: !joined && Self.usesCRLF(day: day, shard: shard),
            omitsFinalNewline: !joined && Self.omitsFinalNewline(day: day, shard: shard),
            memberSize: joined || Self.isMultiMember(day: day, shard: shard) ? Self.memberSize : nil,
            level: configuration.compressionLevel,
            writesCSVHeader: !joined)
        files[slot] = file
        return file
    }

    /// The showcase file of `format`: plain (LF, one member, a final newline).
    private mutating func showcaseFile(_ format: LogFile.Format) -> LogFile {
        let slot = format == .csv ? 1 : 0
        if let file = showcaseFiles[slot] { return file }
        let file = LogFile(
            path: configuration.outputDirectory + "/" + Self.showcasePath(shard: shard, format: format), format: format, usesCRLF: false,
            omitsFinalNewline: false, memberSize: nil, level: configuration.compressionLevel)
        showcaseFiles[slot] = file
        return file
    }

    /// Simulates and writes every user of the shard, then the showcase lines, then closes the files.
    mutating func run() throws -> LogCounts {
        let start = configuration.startMicros
        let asOf = configuration.asOfMicros
        for index in stride(from: shard, to: configuration.users, by: shardCount) {
            let part = part(ofUser: index)
            var random = SplitMix64(seed: configuration.seed, stream: UInt64(index))
            let user = UserProfile(index: index, configuration: configuration, random: &random)
            simulator.simulate(user, random: &random)
            store?.startUser()
            for event in simulator.events {
                let received = event.time + event.receiveDelay
                let day = max(0, Int((received - start) / Micros.day))
                guard day <= configuration.days else { continue }
                let file = file(day: day, part: part)
                let subject = LineSubject(user: user, event: event)
                if file.format == .jsonLines && random.chance(Self.blankLineChance) { file.appendBlankLine() }
                try write(subject, day: day, to: file, random: &random)
                switch event.delivery {
                case .original: counts.events += 1
                case .redelivery: counts.redeliveries += 1
                case .resend: counts.resends += 1
                }
                if user.isSandboxTester { counts.sandboxLines += 1 }
                if !event.kind.isKnown { counts.unknownTypeLines += 1 }
                if event.time >= asOf { counts.afterEndLines += 1 }
                if random.chance(Self.malformedChance) { try writeMalformed(subject, to: file, random: &random) }
            }
            try store?.writeExtras(of: user)
        }
        try writeLongTimeSubscriber()
        try writeShowcase()
        if var store {
            try store.finish(into: &counts)
            userTransactionRows = store.userTransactionRows
        }
        counts.camelCaseLines = encoder.camelCaseLines
        counts.bothSpellingLines = encoder.bothSpellingLines
        for (file, isShowcase) in files.map({ ($0, false) }) + showcaseFiles.map({ ($0, true) }) {
            guard let file, try file.finish() else { continue }
            counts.files += 1
            if file.members > 1 { counts.multiMemberFiles += 1 }
            counts.lines += file.lines
            counts.blankLines += file.blankLines
            if file.format == .csv { counts.csvRows += file.lines }
            counts.uncompressedBytes += Int64(file.uncompressedBytes)
            if isShowcase {
                counts.showcaseFiles += 1
                counts.showcaseLines += file.lines
            }
        }
        return counts
    }

    /// Writes an event of `day` as a line of `file`, or to the store's files when the data set's
    /// store form carries it: then the line the app's log would hold is encoded and dropped
    /// (uncounted), so that the same random draws keep every other line of the data set as it is.
    private mutating func write(_ subject: LineSubject, day: Int, to file: LogFile, random: inout SplitMix64) throws {
        if configuration.shape.sourceFormat.carries(subject.event.kind, of: subject.user) {
            encoder.uncounted { $0.encode(subject, as: file.format, breakage: .none, random: &random) }
            try store?.write(subject.event, user: subject.user, day: day)
        } else {
            encoder.encode(subject, as: file.format, breakage: .none, random: &random)
            try file.appendLine(encoder.line)
        }
    }

    private mutating func writeMalformed(_ subject: LineSubject, to file: LogFile, random: inout SplitMix64) throws {
        let malformation: Malformation
        switch file.format {
        case .jsonLines: malformation = Malformation.json(for: subject.event, random: &random)
        case .csv: malformation = Malformation.csv(for: subject.event, random: &random)
        }
        // Malformed lines are not counted as camelCase/both-spelling lines.
        let line = encoder.uncounted { encoder in
            switch malformation.shape {
            case .notAnObject(let literal):
                var bytes: [UInt8] = []
                bytes.appendASCII(literal)
                return bytes
            case .truncated:
                encoder.encodeJSON(subject, breakage: .none, random: &random)
                let cut = 1 + random.below(encoder.line.count - 1)
                return Array(encoder.line[..<cut])
            case .broken:
                encoder.encode(subject, as: file.format, breakage: malformation.breakage, random: &random)
                return encoder.line
            }
        }
        let destination = Self.mayNameMoney(subject.event, malformation: malformation, line: line) ? showcaseFile(file.format) : file
        try destination.appendLine(line)
        counts.malformed[malformation.reason, default: 0] += 1
    }

    /// A subscriber past the chain's first year (docs/analysis.md §8): the first member in the
    /// spring test (an ordinary one: no QA account, no second or repeated row, paying in USD,
    /// assigned in the first days) gets a monthly chain whose first charge was 380 days before
    /// the assignment, and its renewal an hour after it, which the App Store takes 15 % of. Its
    /// own random stream and ids: every other line of the data set is as it was. In a store's form
    /// the store sends the two charges, as it sends the user's others.
    private mutating func writeLongTimeSubscriber() throws {
        let start = configuration.startMicros
        // The same user however many shards write the set: the shard that holds them writes them.
        for index in 0..<configuration.users {
            var profileRandom = SplitMix64(seed: configuration.seed, stream: UInt64(index))
            let user = UserProfile(index: index, configuration: configuration, random: &profileRandom)
            guard let spring = user.spring, user.copy == nil, !user.isSandboxTester, !user.isLateArrival, user.secondSpringRow == nil,
                user.duplicateRow == nil, user.invalidRowKind == nil, !user.hasStaleGroup, user.currency == Catalog.usd,
                spring.assignedAt < start + 3 * Micros.day
            else { continue }
            guard index % shardCount == shard else { return }
            var random = SplitMix64(seed: configuration.seed, stream: UInt64.max)
            store?.startUser()
            let product = Catalog.monthly1999
            let period = Int64(Catalog.products[product].renewalDays) * Micros.day
            let chain = UserSimulator.oldTransactionBase + 950_000_000_000_001
            let firstCharge = spring.assignedAt - 380 * Micros.day
            for (kind, time, transaction) in [
                (EventKind.purchase, firstCharge, chain), (.renewal, spring.assignedAt + Micros.hour, chain + 1),
            ] {
                var event = SimEvent(time: time, sequence: Int32(1_000 + transaction - chain), kind: kind)
                event.product = Int8(product)
                event.transaction = transaction
                event.original = chain
                event.amount = Catalog.products[product].prices[Catalog.usd]
                event.currency = Int8(Catalog.usd)
                event.fromServer = true
                event.expiresAt = time + period
                event.idHigh = chain
                event.idLow = transaction
                event.idSerial = event.sequence
                let subject = LineSubject(user: user, event: event)
                let file = file(day: 0, part: part(ofUser: index))
                try write(subject, day: 0, to: file, random: &random)
                counts.events += 1
            }
            return
        }
    }

    /// The fixed malformed lines, in shard 0's showcase files.
    private mutating func writeShowcase() throws {
        guard shard == 0 else { return }
        let start = configuration.startMicros
        for (format, lines) in [(LogFile.Format.jsonLines, Showcase.jsonLines(start: start)), (.csv, Showcase.csvLines(start: start))] {
            let file = showcaseFile(format)
            for line in lines {
                try file.appendLine(Array(line.text.utf8))
                counts.malformed[line.reason, default: 0] += 1
            }
        }
    }
}
