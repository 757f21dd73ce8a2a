import OfferLabSupport

/// Reads the four small offering tables into an `OfferingCatalog`.
///
/// These tables define the experiment, so a row that cannot be read fails the run with the
/// file, the row and the value named (unlike assignment rows, which are counted and skipped).
package enum CatalogLoader {
    package static func load(from source: TableSource) throws -> OfferingCatalog {
        var offerings: [Offering] = []
        try source.forEachRow(of: "subscription_offerings", columns: ["id", "offering_id", "name", "is_active"]) { row in
            let context = "subscription_offerings \(row.location)"
            guard let id = row.integer(0) else { throw unreadable(row, context, "id", row.text(0)) }
            guard let offeringID = row.text(1), !offeringID.isEmpty else { throw unreadable(row, context, "offering_id", row.text(1)) }
            guard let isActive = row.bool(3) else { throw unreadable(row, context, "is_active", row.text(3)) }
            if offerings.contains(where: { $0.id == id || $0.offeringID == offeringID }) {
                throw OfferLabError(
                    .badTables, "tables: \(context): offering id \(id) / \(offeringID) appears twice", location: row.errorLocation)
            }
            offerings.append(Offering(id: id, offeringID: offeringID, name: row.text(2) ?? "", isActive: isActive, groups: []))
        }
        var catalog = OfferingCatalog(offerings: offerings)

        var groupLocation: [Int64: (offering: Int, group: Int)] = [:]
        try source.forEachRow(of: "subscription_offering_groups", columns: ["id", "subscription_offering_id", "group_name", "weight"]) {
            row in
            let context = "subscription_offering_groups \(row.location)"
            guard let id = row.integer(0) else { throw unreadable(row, context, "id", row.text(0)) }
            guard let offeringKey = row.integer(1) else { throw unreadable(row, context, "subscription_offering_id", row.text(1)) }
            guard let name = row.text(2), !name.isEmpty else { throw unreadable(row, context, "group_name", row.text(2)) }
            guard let weight = row.real(3), weight >= 0 else { throw unreadable(row, context, "weight", row.text(3)) }
            guard let offering = catalog.offeringIndex(id: offeringKey) else {
                throw OfferLabError(
                    .badTables, "tables: \(context): offering \(offeringKey) is not in subscription_offerings", location: row.errorLocation)
            }
            guard groupLocation[id] == nil else {
                throw OfferLabError(.badTables, "tables: \(context): group id \(id) appears twice", location: row.errorLocation)
            }
            guard !catalog.offerings[offering].groups.contains(where: { $0.name == name }) else {
                throw OfferLabError(
                    .badTables, "tables: \(context): offering \(catalog.offerings[offering].offeringID) has two groups named \(name)",
                    location: row.errorLocation)
            }
            catalog.offerings[offering].groups.append(OfferingGroup(id: id, name: name, weight: weight, products: [], copy: nil))
            groupLocation[id] = (offering, catalog.offerings[offering].groups.count - 1)
        }

        // What each group was shown only feeds reports: these two tables may be absent.
        if try source.hasTable("subscription_offering_group_products") {
            try source.forEachRow(
                of: "subscription_offering_group_products",
                columns: [
                    "offering_group_id", "product_id", "type", "fallback_display_price", "position", "is_default", "badge_text",
                    "subtitle_text",
                ]
            ) { row in
                let context = "subscription_offering_group_products \(row.location)"
                guard let groupKey = row.integer(0), let location = groupLocation[groupKey] else {
                    throw OfferLabError(
                        .badTables, "tables: \(context): offering_group_id \(row.text(0) ?? "NULL") is not in subscription_offering_groups",
                        location: row.errorLocation)
                }
                guard let productID = row.text(1), !productID.isEmpty else { throw unreadable(row, context, "product_id", row.text(1)) }
                let product = GroupProduct(
                    productID: productID, type: row.text(2), fallbackDisplayPrice: row.text(3), position: row.integer(4),
                    isDefault: row.bool(5) ?? false, badgeText: row.text(6), subtitleText: row.text(7))
                catalog.offerings[location.offering].groups[location.group].products.append(product)
            }
        }

        if try source.hasTable("subscription_offering_group_copy") {
            try source.forEachRow(
                of: "subscription_offering_group_copy",
                columns: ["offering_group_id", "header_title", "header_subtitle", "cta_button_text", "supporting_text"]
            ) { row in
                let context = "subscription_offering_group_copy \(row.location)"
                guard let groupKey = row.integer(0), let location = groupLocation[groupKey] else {
                    throw OfferLabError(
                        .badTables, "tables: \(context): offering_group_id \(row.text(0) ?? "NULL") is not in subscription_offering_groups",
                        location: row.errorLocation)
                }
                catalog.offerings[location.offering].groups[location.group].copy = GroupCopy(
                    headerTitle: row.text(1), headerSubtitle: row.text(2), ctaButtonText: row.text(3), supportingText: row.text(4))
            }
        }

        for offering in catalog.offerings.indices {
            catalog.offerings[offering].groups.sort { $0.id < $1.id }
            for group in catalog.offerings[offering].groups.indices {
                catalog.offerings[offering].groups[group].products.sort { ($0.position ?? .max) < ($1.position ?? .max) }
            }
        }
        return catalog
    }

    private static func unreadable(_ row: TableRowValues, _ context: String, _ column: String, _ value: String?) -> OfferLabError {
        OfferLabError(.badTables, "tables: \(context): \(column) '\(value ?? "NULL")' cannot be read", location: row.errorLocation)
    }
}
