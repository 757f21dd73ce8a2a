import OfferLabStatistics

/// One user's assignment to one offering.
struct Assignment {
    /// Index in `Catalog.groups`.
    var group: Int
    /// Whole seconds, as the server's table stores it (microseconds since the epoch).
    var assignedAt: Int64
}

/// Everything fixed about a user before any event: identity, country, assignments and the
/// quirks the user carries. Drawn from the first numbers of the user's own random stream, so
/// the assignments pass and the events pass see the same user without storing anything.
struct UserProfile {
    let index: Int
    private let everyonePaysThroughPlay: Bool

    /// The store the user pays through, written on transaction lines: Google Play for one user in
    /// five, the App Store named for another (the others' lines name none: the job's
    /// `default_store`, the App Store); Google Play for every user of an Android app
    /// (`PlayUsers.all`). From the index, not a random draw.
    var store: [UInt8]? {
        if everyonePaysThroughPlay { return Self.playStore }
        return switch index % 5 {
        case 2: Self.playStore
        case 3: Self.appStore
        default: nil
        }
    }
    static let playStore = Array("play_store".utf8)
    static let appStore = Array("app_store".utf8)
    /// Whether the user pays through Google Play: on Android, out of Apple's notifications.
    var paysThroughPlayStore: Bool { store == Self.playStore }
    /// The platform the user's events name: `android` for Google Play's users, else the Apple
    /// platform drawn (`platform`, drawn for every user, so that the random stream is the same).
    var platformName: [UInt8] { paysThroughPlayStore ? Catalog.android : Catalog.platforms[platform] }
    /// The numeric part of the user id.
    let idNumber: UInt64
    /// Zeros written before `idNumber` (`"00" + …`: a different user from the one without).
    let leadingZeros: Int
    /// How the id is written (`idNumber` in decimal, base 36 or hex).
    let idShape: UserIDShape
    var country = 0
    var platform = 0
    /// When the user first opened the app (microseconds).
    var arrival: Int64 = 0
    var spring: Assignment?
    var copy: Assignment?
    /// Assigned at or after `as_of`: the analysis must ignore the rows.
    var isLateArrival = false
    /// A QA account: every event is a sandbox event.
    var isSandboxTester = false
    /// The client logs a stale `test_group_id` (another group of the offering) on its events.
    var hasStaleGroup = false
    /// The client showed a cached paywall (logged `paywall_view`) before the server assigned it.
    var viewsBeforeAssignment = false
    /// A second row in the spring test naming another group (a multi-group user).
    var secondSpringRow: Assignment?
    /// A repeated row for the primary offering: same group, later `assigned_at`.
    var duplicateRow: Assignment?
    /// Whether the repeated row is written before the original one.
    var duplicateRowFirst = false
    /// 0…3: one extra invalid row (unknown group, unknown offering, group of another offering,
    /// unreadable MySQL zero date).
    var invalidRowKind: Int?

    /// The offering whose paywall the user sees (spring when in both), and its assignment.
    var primary: Assignment? { spring ?? copy }

    var currency: Int { Catalog.countries[country].currency }
    /// Whether lines may write the id as a JSON number: a numeric id without leading zeros.
    var idIsPlainInteger: Bool { leadingZeros == 0 && idShape == .numeric }

    /// The chance that this user starts a trial or buys.
    var conversionChance: Double {
        if isSandboxTester { return 1 }
        var chance = Catalog.baseConversion
        if let spring { chance *= Catalog.groups[spring.group].conversionMultiplier }
        if let copy { chance *= Catalog.groups[copy.group].conversionMultiplier }
        return chance
    }

    /// Relative chance of a first visit in each UTC hour (evenings are busier).
    private static let hourWeights: [Double] = [
        3, 2, 2, 1, 1, 1, 2, 3, 4, 5, 5, 5, 6, 6, 6, 6, 7, 8, 9, 10, 10, 9, 7, 5,
    ]

    static let firstUserID: UInt64 = 10_000_001

    init(index: Int, configuration: GeneratorConfiguration, random: inout SplitMix64) {
        self.index = index
        everyonePaysThroughPlay = configuration.shape.playUsers == .all
        idShape = configuration.shape.userIDs
        // Quirk users are chosen by index so that even a small data set has each of them.
        if index % 1000 == 7 {
            // "00" + the id of the previous user: equal as numbers, different as text.
            idNumber = Self.firstUserID + UInt64(index - 1)
            leadingZeros = 2
        } else {
            idNumber = Self.firstUserID + UInt64(index)
            leadingZeros = 0
        }
        let isMultiGroup = index % 1000 == 11
        isSandboxTester = index % 1000 == 23
        hasStaleGroup = index % 500 == 29
        viewsBeforeAssignment = index % 50 == 31
        isLateArrival = index % 100 == 13
        let hasDuplicateRow = index % 200 == 3
        if (41...44).contains(index % 2500) { invalidRowKind = index % 2500 - 41 }

        // Draws, always in this order.
        let membership = random.unit()
        let springGroup = random.pick(weights: Catalog.weights(offering: Catalog.springOffering))
        let copyGroup = random.pick(weights: Catalog.weights(offering: Catalog.copyOffering))
        country = random.pick(weights: Catalog.countryWeights)
        platform = random.pick(weights: Catalog.platformWeights)
        let day = Int64(random.below(configuration.days))
        let hour = Int64(random.pick(weights: Self.hourWeights))
        let withinHour = random.between(0, Micros.hour)
        let springDelay = random.between(5 * Micros.second, 90 * Micros.second)
        let lateDelay = random.between(0, 10 * Micros.hour)
        let secondRowDelay = random.between(Micros.hour, 2 * Micros.day)
        let duplicateDelay = random.between(10 * Micros.minute, 3 * Micros.day)
        duplicateRowFirst = random.chance(0.5)

        arrival =
            isLateArrival
            ? configuration.asOfMicros + lateDelay
            : configuration.startMicros + day * Micros.day + hour * Micros.hour + withinHour

        // 1.5 % in no test, 58.5 % spring only, 35 % copy only, 5 % both.
        var inSpring = (0.015..<0.60).contains(membership) || membership >= 0.95
        var inCopy = membership >= 0.60
        if isMultiGroup || isSandboxTester || hasStaleGroup { inSpring = true }
        if isLateArrival && !inSpring && !inCopy { inCopy = true }
        let arrivalSecond = Self.wholeSeconds(arrival)
        if inCopy { copy = Assignment(group: Catalog.offerings[Catalog.copyOffering].groups[copyGroup], assignedAt: arrivalSecond) }
        if inSpring {
            let at = inCopy ? Self.wholeSeconds(arrival + springDelay) : arrivalSecond
            spring = Assignment(group: Catalog.offerings[Catalog.springOffering].groups[springGroup], assignedAt: at)
        }
        if isMultiGroup, let spring {
            let groups = Catalog.offerings[Catalog.springOffering].groups
            let other = groups[(springGroup + 1) % groups.count]
            secondSpringRow = Assignment(group: other, assignedAt: Self.wholeSeconds(spring.assignedAt + secondRowDelay))
        }
        if hasDuplicateRow, let primary {
            duplicateRow = Assignment(group: primary.group, assignedAt: Self.wholeSeconds(primary.assignedAt + duplicateDelay))
        }
    }

    static func wholeSeconds(_ micros: Int64) -> Int64 {
        micros - ((micros % Micros.second) + Micros.second) % Micros.second
    }

    /// Writes the user id text.
    func appendID(to bytes: inout [UInt8]) {
        for _ in 0..<leadingZeros { bytes.append(UInt8(ascii: "0")) }
        switch idShape {
        case .numeric:
            bytes.appendDecimal(idNumber)
        case .shortText:
            bytes.append(UInt8(ascii: "u"))
            bytes.appendBase36(idNumber)
        case .longText:
            // The first half is a bijection of the number, so different users never share an id.
            bytes.appendASCII("usr_")
            bytes.appendHex(SplitMix64.mix(idNumber), digits: 16)
            bytes.appendHex(SplitMix64.mix(idNumber ^ 0x5DEE_CE66_D1CE_4E5B), digits: 16)
        case .uuid:
            // The number itself in the low bits the version-4 form keeps: different users never
            // share an id.
            let low = (SplitMix64.mix(idNumber) & ~0xFFFF_FFFF) | (idNumber & 0xFFFF_FFFF)
            bytes.appendUUID(high: SplitMix64.mix(idNumber ^ 0x5DEE_CE66_D1CE_4E5B), low: low)
        }
    }
}
