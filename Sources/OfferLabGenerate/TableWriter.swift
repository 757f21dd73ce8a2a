import Foundation
import OfferLabIngest
import OfferLabStatistics

/// Writes the five offering tables of the server database export, each in a different
/// encoding so that every reader is exercised:
///
/// - `subscription_offerings.csv`: RFC 4180, LF, a quoted name with a comma, booleans `1`/`true`/`0`;
/// - `subscription_offering_groups.tsv`: `mysql --batch` (the `NULL` word, `\t` and `\"` escapes);
/// - `subscription_offering_group_products.csv`: CRLF, `\N` and empty NULLs, a quoted comma, `""`, a
///   quoted newline, booleans in mixed case;
/// - `subscription_offering_group_copy.tsv`: escaped newline, tab and backslash, UTF-8;
/// - `user_offering_assignments.csv.gz`: gzip, CRLF, `YYYY-MM-DD HH:MM:SS` UTC.
enum TableWriter {
    static let folder = "tables"

    /// Writes the four small tables (from the catalogue). Returns their relative paths.
    static func writeOfferingTables(into directory: String) throws -> [String] {
        var written: [String] = []
        func save(_ name: String, _ text: String) throws {
            let relative = folder + "/" + name
            let path = directory + "/" + relative
            guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
                throw GeneratorError("cannot write the table file", path: path)
            }
            written.append(relative)
        }

        var offerings = "id,offering_id,name,is_active,created_at\n"
        for offering in Catalog.offerings {
            offerings += "\(offering.tableID),\(offering.offeringID),\(csvField(offering.name)),"
            offerings += "\(offering.isActiveText),\(offering.createdAt)\n"
        }
        try save("subscription_offerings.csv", offerings)

        var groups = "id\tsubscription_offering_id\tgroup_name\tweight\tdescription\n"
        for group in Catalog.groups {
            let offering = Catalog.offerings[group.offering]
            groups += "\(group.tableID)\t\(offering.tableID)\t\(tsvField(group.name))\t\(group.weightText)\t"
            groups += "\(group.description.map(tsvField) ?? "NULL")\n"
        }
        try save("subscription_offering_groups.tsv", groups)

        // Columns in another order than docs/input-formats.md#offering-tables lists them, plus an
        // extra one.
        var products = "offering_group_id,position,product_id,type,fallback_display_price,is_default,"
        products += "badge_text,subtitle_text,created_at\r\n"
        var nullStyle = 0
        for group in Catalog.groups {
            for item in group.products {
                let product = Catalog.products[item.product]
                let badge = item.badge.map(csvField) ?? (nullStyle % 2 == 0 ? "" : "\\N")
                nullStyle += 1
                let subtitle = item.subtitle.map(csvField) ?? (nullStyle % 2 == 0 ? "" : "\\N")
                products += "\(group.tableID),\(item.position),\(product.id),\(product.type),"
                products += "\(product.fallbackDisplayPrice),\(item.isDefaultText),\(badge),\(subtitle),"
                products += "2026-02-10 16:05:11\r\n"
            }
        }
        // A quoted subtitle with a line break, on a product of the ended offering.
        products += "8,1,monthly_1999,monthly,19.99,0,\"\",\"Cancel anytime.\nNo commitment.\",2025-12-01 10:00:00\r\n"
        try save("subscription_offering_group_products.csv", products)

        var copy = "offering_group_id\theader_title\theader_subtitle\tcta_button_text\tsupporting_text\tlocale\n"
        for group in Catalog.groups {
            let text = group.copy
            copy += "\(group.tableID)\t\(tsvField(text.headerTitle))\t\(tsvField(text.headerSubtitle))\t"
            copy += "\(tsvField(text.ctaButtonText))\t\(tsvField(text.supportingText))\t"
            copy += "\(text.locale.map(tsvField) ?? "NULL")\n"
        }
        try save("subscription_offering_group_copy.tsv", copy)
        return written
    }

    /// RFC 4180: quoted when the value holds a comma, a quote or a line break; quotes doubled.
    static func csvField(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `mysql --batch`: backslash, tab, newline, carriage return and NUL escaped.
    static func tsvField(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\0": out += "\\0"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static let assignmentsName = "user_offering_assignments.csv.gz"

    /// Writes `user_transactions.csv` (`user_id,original_transaction_id`: the chains the app
    /// registered with the server, docs/input-formats.md#the-user_transactions-table) from `rows`,
    /// lines without the header.
    /// Returns its relative path.
    static func writeUserTransactions(into directory: String, rows: [UInt8]) throws -> String {
        let relative = folder + "/user_transactions.csv"
        let path = directory + "/" + relative
        guard FileManager.default.createFile(atPath: path, contents: Data(Array("user_id,original_transaction_id\n".utf8) + rows)) else {
            throw GeneratorError("cannot write the table file", path: path)
        }
        return relative
    }

    /// Streams `user_offering_assignments.csv.gz`: one pass over the users, recomputing each
    /// profile from its seed (nothing is kept). Returns the number of rows.
    static func writeAssignments(configuration: GeneratorConfiguration) throws -> Int {
        let path = configuration.outputDirectory + "/" + folder + "/" + assignmentsName
        let writer = try GzipWriter(path: path, level: configuration.compressionLevel)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 17)
        buffer.appendASCII("id,user_id,subscription_offering_id,offering_group_id,assigned_at\r\n")
        var rowID = 0
        func row(_ user: UserProfile, offering: Int, group: Int, at: Int64?, rawTime: StaticString? = nil) {
            rowID += 1
            buffer.appendDecimal(rowID)
            buffer.append(UInt8(ascii: ","))
            user.appendID(to: &buffer)
            buffer.append(UInt8(ascii: ","))
            buffer.appendDecimal(offering)
            buffer.append(UInt8(ascii: ","))
            buffer.appendDecimal(group)
            buffer.append(UInt8(ascii: ","))
            if let rawTime { buffer.appendASCII(rawTime) } else if let at { buffer.appendTimestamp(at, style: .mysql) }
            buffer.appendASCII("\r\n")
        }
        func row(_ user: UserProfile, _ assignment: Assignment) {
            let group = Catalog.groups[assignment.group]
            row(user, offering: Catalog.offerings[group.offering].tableID, group: group.tableID, at: assignment.assignedAt)
        }
        for index in 0..<configuration.users {
            var random = SplitMix64(seed: configuration.seed, stream: UInt64(index))
            let user = UserProfile(index: index, configuration: configuration, random: &random)
            if user.duplicateRowFirst, let duplicate = user.duplicateRow { row(user, duplicate) }
            if let copy = user.copy { row(user, copy) }
            if let spring = user.spring { row(user, spring) }
            if let second = user.secondSpringRow { row(user, second) }
            if !user.duplicateRowFirst, let duplicate = user.duplicateRow { row(user, duplicate) }
            if let kind = user.invalidRowKind, let primary = user.primary {
                let at = primary.assignedAt + 7 * Micros.minute
                let spring = Catalog.offerings[Catalog.springOffering].tableID
                switch kind {
                case 0: row(user, offering: spring, group: Catalog.unknownGroupTableID, at: at)
                case 1: row(user, offering: Catalog.unknownOfferingTableID, group: 1, at: at)
                case 2:
                    // A group of the copy test under the spring test's id.
                    row(user, offering: spring, group: Catalog.groups[Catalog.offerings[Catalog.copyOffering].groups[1]].tableID, at: at)
                default:
                    // MySQL's zero date: unreadable.
                    row(user, offering: spring, group: 1, at: nil, rawTime: "0000-00-00 00:00:00")
                }
            }
            if buffer.count >= 1 << 16 {
                try writer.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try writer.write(buffer)
        try writer.finish()
        return rowID
    }
}
