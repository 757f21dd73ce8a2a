import OfferLabStatistics

/// How the generated logs write `event_id`. Every shape writes the same events: an event's id
/// is a one-to-one function of the event, so duplicates stay duplicates and distinct events stay
/// distinct, and a data set gives the same numbers in every shape.
package enum EventIDShape: String, CaseIterable, Sendable {
    /// `0b7e9a64-3c1d-4f2a-9e0b-5d6c7a8b9c0d`: a version-4 UUID, the default.
    case uuid
    /// The same 128 bits as 32 lowercase hex digits, without dashes.
    case hex32
    /// The same 128 bits as a 26-character ULID (Crockford base 32).
    case ulid
    /// A 19-digit Snowflake-style integer (a JSON number; digits in CSV logs).
    case integer
    /// A 40-byte prefixed key, `evt_` then base-62 text, as payment APIs write them.
    case prefixed
    /// No `event_id` at all: duplicate deliveries can then only be told by their transaction,
    /// so the numbers differ from the other shapes (docs/analysis.md §2).
    case none
}

/// How the generated tables and logs write `user_id`. A one-to-one function of the user, so the
/// numbers do not depend on it.
package enum UserIDShape: String, CaseIterable, Sendable {
    /// `10000001 + index`, sometimes a JSON number: the default.
    case numeric
    /// `u` then the number in base 36 (6 characters).
    case shortText = "short-text"
    /// 36 characters: `usr_` then 32 hex digits.
    case longText = "long-text"
    /// A lower-case UUID, as an app that sets the App Store's `appAccountToken` to its user id
    /// writes it (`--format app_store_notifications` then finds most users by the token).
    case uuid
}

/// How the generated logs are cut into files. Every layout holds the same lines, each written
/// in the same format (JSON or CSV), so the numbers do not depend on it; only rejects' line
/// numbers and file names do.
package enum LogLayout: String, CaseIterable, Sendable {
    /// Four files a day (about 17 MB of text each at 1M users, 60 files), the default.
    case dailyShards = "daily-shards"
    /// Twenty files a day: each of the four daily files cut in five by user (300 files,
    /// about 3.5 MB of text, 0.6 MB gzipped each at 1M users).
    case smallFiles = "small-files"
    /// One JSON Lines file with every JSON line (about 0.85 GB of text at 1M users) and one CSV
    /// log with every CSV row, each in 4 MiB gzip members.
    case oneFile = "one-file"

    /// Files a daily shard is cut into.
    var partsPerShard: Int { self == .smallFiles ? 5 : 1 }
}

/// Which users pay through Google Play; the others pay through the App Store.
package enum PlayUsers: String, CaseIterable, Sendable {
    /// One user in five (i mod 5 = 2): an app that sells on both stores, the default.
    case oneInFive = "one-in-five"
    /// Every user: an Android app, whose store facts (`--format google_play`) are all Play's.
    case all
}

extension Array where Element == UInt8 {
    /// The id of `event` (of the user with index `userIndex`) in `shape`; nothing for `.none`.
    mutating func appendEventID(_ event: SimEvent, userIndex: Int, shape: EventIDShape) {
        // The UUID's version and variant bits, fixed in every 128-bit shape so that they all
        // carry the same 122 random bits.
        let (high, low) = Self.uuidV4Bits(high: event.idHigh, low: event.idLow)
        switch shape {
        case .uuid:
            appendUUID(high: event.idHigh, low: event.idLow)
        case .hex32:
            appendHex(high, digits: 16)
            appendHex(low, digits: 16)
        case .ulid:
            appendCrockford(high: high, low: low)
        case .integer:
            appendDecimal(Self.snowflake(userIndex: userIndex, serial: event.idSerial))
        case .prefixed:
            appendASCII("evt_")
            appendBase62(high, digits: 11)
            appendBase62(low, digits: 11)
            append(UInt8(ascii: "_"))
            appendBase62(SplitMix64.mix(high ^ low), digits: 13)
        case .none:
            break
        }
    }

    /// A Snowflake-style 19-digit id, unique per (user, serial): the top bit set as a
    /// timestamp's would be, then the user, then the event's serial number.
    static func snowflake(userIndex: Int, serial: Int32) -> UInt64 {
        (1 << 60) | (UInt64(userIndex) << 20) | UInt64(UInt32(bitPattern: serial) & 0xF_FFFF)
    }

    /// 128 bits as 26 Crockford base-32 digits (a ULID's text: the first digit holds 3 bits).
    private mutating func appendCrockford(high: UInt64, low: UInt64) {
        let alphabet: StaticString = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
        alphabet.withUTF8Buffer { digits in
            for position in 0..<26 {
                let shift = 125 - 5 * position
                let value: UInt64
                if shift >= 64 {
                    value = high >> UInt64(shift - 64)
                } else if shift > 59 {
                    value = (high << UInt64(64 - shift)) | (low >> UInt64(shift))
                } else {
                    value = low >> UInt64(shift)
                }
                append(digits[Int(value & 31)])
            }
        }
    }

    /// The low part of `value` as `digits` base-62 digits, most significant first (11 digits
    /// hold 64 bits).
    private mutating func appendBase62(_ value: UInt64, digits: Int) {
        let alphabet: StaticString = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
        let start = count
        var rest = value
        alphabet.withUTF8Buffer { symbols in
            for _ in 0..<digits {
                append(symbols[Int(rest % 62)])
                rest /= 62
            }
        }
        self[start..<count].reverse()
    }

    /// `number` in base 36, lowercase.
    mutating func appendBase36(_ number: UInt64) {
        let start = count
        var rest = number
        repeat {
            let digit = UInt8(truncatingIfNeeded: rest % 36)
            append(digit < 10 ? 48 + digit : 87 + digit)
            rest /= 36
        } while rest > 0
        self[start..<count].reverse()
    }
}
