import OfferLabIngest
import OfferLabStatistics

/// The app's past (docs/generator.md#the-apps-past): earlier buyers of the products the app sold
/// before the tests, who are in no test, with their chains from the year before `start` up to the
/// end of the period, in `history/YYYY/MM/buyers.jsonl.gz` by the month of their first charge.
/// They renew and are refunded as the members do (`UserSimulator`'s chances), so a job that
/// names the folder in `history_logs` sees a past like its members.
///
/// Every buyer has its own random stream, apart from the users' streams: every other file of the
/// data set is the same with or without the past. One file open at a time.
package enum HistoryWriter {
    package static let folder = "history"
    /// Earlier buyers per user of the period.
    static let buyersPerUser = 0.3
    /// Months of past before `start`: a year.
    static let months = 12
    /// The products sold before the tests, and their shares of first charges: the built-in
    /// paywall's weekly and monthly plans and the yearly plan. The spring test's new prices and
    /// the 3-day pass have no past.
    static let products: [(product: Int, share: Double)] = [
        (Catalog.weekly799, 0.5), (Catalog.monthly1999, 0.35), (Catalog.yearly5999, 0.15),
    ]
    /// Earlier buyers' ids start here: far above the users' (`UserProfile.firstUserID` + at most 10⁹).
    static let firstBuyerID: UInt64 = 5_000_000_001
    /// Their random streams start here (the users' are their indices, the long-time subscriber's
    /// `UInt64.max`).
    static let firstStream: UInt64 = 1 << 62

    /// The number of earlier buyers of a data set.
    static func buyerCount(_ configuration: GeneratorConfiguration) -> Int {
        max(1, Int((Double(configuration.users) * buyersPerUser).rounded()))
    }

    /// The file of month `month` (0: the first of the twelve months before `start`), relative to
    /// the output folder.
    static func relativePath(month: Int, configuration: GeneratorConfiguration) -> String {
        let first = calendarMonth(month, configuration: configuration)
        var path = Array((folder + "/").utf8)
        path.appendDigits(first.year, width: 4)
        path.append(UInt8(ascii: "/"))
        path.appendDigits(first.month, width: 2)
        return String(decoding: path, as: UTF8.self) + "/buyers.jsonl.gz"
    }

    /// Writes the files; returns their paths relative to the output folder and the lines written.
    static func write(configuration: GeneratorConfiguration) throws -> (files: [String], lines: Int) {
        let buyers = buyerCount(configuration)
        var files: [String] = []
        var lines = 0
        var line: [UInt8] = []
        for month in 0..<months {
            let relative = relativePath(month: month, configuration: configuration)
            let file = LogFile(
                path: configuration.outputDirectory + "/" + relative, format: .jsonLines, usesCRLF: false, omitsFinalNewline: false,
                memberSize: nil, level: configuration.compressionLevel)
            let from = monthStart(month, configuration: configuration)
            let until = monthStart(month + 1, configuration: configuration)
            // Buyer b belongs to month b mod 12: every month has buyers whatever their number.
            for buyer in stride(from: month, to: buyers, by: months) {
                var random = SplitMix64(seed: configuration.seed, stream: firstStream + UInt64(buyer))
                var chain = BuyerChain(buyer: buyer, configuration: configuration)
                chain.simulate(firstChargeBetween: from, and: until, random: &random)
                for event in chain.events {
                    encode(event, buyer: buyer, into: &line)
                    try file.appendLine(line)
                }
            }
            if try file.finish() {
                files.append(relative)
                lines += file.lines
            }
        }
        return (files, lines)
    }

    /// The first day of month `month` of the past: the calendar month `months − month` before
    /// `start`'s.
    private static func calendarMonth(_ month: Int, configuration: GeneratorConfiguration) -> CivilDate {
        let monthsSinceYearZero = configuration.start.year * 12 + configuration.start.month - 1 - (months - month)
        return CivilDate(checkedYear: monthsSinceYearZero / 12, month: monthsSinceYearZero % 12 + 1, day: 1)
    }

    /// The first instant of month `month` of the past; month 12 is `start` itself (first charges
    /// are all before the period).
    private static func monthStart(_ month: Int, configuration: GeneratorConfiguration) -> Int64 {
        month == months ? configuration.startMicros : calendarMonth(month, configuration: configuration).daysSinceEpoch * Micros.day
    }

    /// One line in the log format (docs/input-formats.md#json-lines), plainly written.
    private static func encode(_ event: PastEvent, buyer: Int, into line: inout [UInt8]) {
        line.removeAll(keepingCapacity: true)
        let product = Catalog.products[event.product]
        let currency = Catalog.currencies[event.currency]
        line.appendASCII(#"{"event_id":"past-"#)
        line.appendDecimal(buyer)
        line.append(UInt8(ascii: "-"))
        line.appendDecimal(event.sequence)
        line.appendASCII(#"","ts":""#)
        line.appendTimestamp(event.time, style: .iso)
        line.appendASCII(#"","user_id":""#)
        line.appendDecimal(firstBuyerID + UInt64(buyer))
        line.appendASCII(#"","event":""#)
        line.appendASCII(event.kind.name)
        line.appendASCII(#"","product_id":""#)
        line.append(contentsOf: product.idBytes)
        line.append(UInt8(ascii: "\""))
        if event.transaction != 0 {
            line.appendASCII(#","transaction_id":""#)
            line.appendDecimal(event.transaction)
            line.append(UInt8(ascii: "\""))
        }
        line.appendASCII(#","original_transaction_id":""#)
        line.appendDecimal(event.original)
        line.append(UInt8(ascii: "\""))
        if event.amount >= 0 {
            line.appendASCII(#","price":"#)
            line.appendMoney(minorUnits: event.amount, exponent: currency.exponent)
            line.appendASCII(#","currency":""#)
            line.append(contentsOf: currency.codeBytes)
            line.append(UInt8(ascii: "\""))
        }
        if event.expiresAt != 0 {
            line.appendASCII(#","expires_at":""#)
            line.appendTimestamp(event.expiresAt, style: .iso)
            line.append(UInt8(ascii: "\""))
        }
        line.appendASCII(#","environment":"production","store":"app_store"}"#)
    }
}

/// An event of an earlier buyer.
private struct PastEvent {
    var time: Int64
    var sequence: Int
    var kind: EventKind
    var product: Int
    /// 0 for a chain event (`cancel`, `expire`).
    var transaction: UInt64 = 0
    var original: UInt64
    /// Minor units; -1: none (a whole refund names no price).
    var amount: Int64 = -1
    var currency: Int
    var expiresAt: Int64 = 0
}

/// One earlier buyer's subscription chain: a first charge, its renewals to the end of the period,
/// refunds, and the cancel and expire that end it.
private struct BuyerChain {
    let buyer: Int
    let configuration: GeneratorConfiguration
    private(set) var events: [PastEvent] = []
    private var transactions: UInt64 = 0

    /// Apple-style 16-digit ids apart from the users' (`UserSimulator.transactionBase`).
    static let transactionBase: UInt64 = 3_000_000_000_000_000

    init(buyer: Int, configuration: GeneratorConfiguration) {
        self.buyer = buyer
        self.configuration = configuration
    }

    mutating func simulate(firstChargeBetween from: Int64, and until: Int64, random: inout SplitMix64) {
        let product = HistoryWriter.products[random.pick(weights: HistoryWriter.products.map(\.share))].product
        let currency = Catalog.countries[random.pick(weights: Catalog.countryWeights)].currency
        let period = Int64(Catalog.products[product].renewalDays) * Micros.day
        var chargeTime = random.between(from, until - 1)
        let original = nextTransaction()
        charge(
            .purchase, product: product, currency: currency, at: chargeTime, transaction: original, original: original,
            period: period, random: &random)
        if random.chance(UserSimulator.immediateCancelChance) {
            end(
                product: product, original: original, cancelAt: chargeTime + random.between(5 * Micros.minute, Micros.day),
                expireAt: chargeTime + period)
            return
        }
        let keepRenewing = UserSimulator.renewalChance(Catalog.products[product])
        while true {
            let next = chargeTime + period
            if next >= configuration.horizonMicros { return }
            guard random.chance(keepRenewing) else {
                end(
                    product: product, original: original,
                    cancelAt: chargeTime + random.between(period / 10, period * 95 / 100), expireAt: next)
                return
            }
            chargeTime = next + random.between(0, Micros.hour)
            charge(
                .renewal, product: product, currency: currency, at: chargeTime, transaction: nextTransaction(),
                original: original, period: period, random: &random)
        }
    }

    private mutating func nextTransaction() -> UInt64 {
        transactions += 1
        return Self.transactionBase + UInt64(buyer) * 4096 + min(transactions, 4095)
    }

    /// A charge, and perhaps its refund (the whole price, named or not).
    private mutating func charge(
        _ kind: EventKind, product: Int, currency: Int, at time: Int64, transaction: UInt64, original: UInt64, period: Int64,
        random: inout SplitMix64
    ) {
        let price = Catalog.products[product].prices[currency]
        append(
            PastEvent(
                time: time, sequence: 0, kind: kind, product: product, transaction: transaction, original: original,
                amount: price, currency: currency, expiresAt: time + period))
        guard random.chance(UserSimulator.refundChance(Catalog.products[product])) else { return }
        let named = random.chance(0.5)
        append(
            PastEvent(
                time: time + random.between(2 * Micros.hour, 6 * Micros.day), sequence: 0, kind: .refund, product: product,
                transaction: transaction, original: original, amount: named ? price : -1, currency: currency))
    }

    private mutating func end(product: Int, original: UInt64, cancelAt: Int64, expireAt: Int64) {
        append(PastEvent(time: cancelAt, sequence: 0, kind: .cancel, product: product, original: original, currency: 0))
        append(PastEvent(time: expireAt, sequence: 0, kind: .expire, product: product, original: original, currency: 0))
    }

    /// Keeps what the period can see, numbered in the order made.
    private mutating func append(_ event: PastEvent) {
        guard event.time < configuration.horizonMicros else { return }
        var numbered = event
        numbered.sequence = events.count + 1
        events.append(numbered)
    }
}
