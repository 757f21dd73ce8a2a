import Foundation
import Testing

/// docs/architecture.md's walk-through of a new store format, held to the code: outside its
/// folder of Sources/OfferLabStoreSources, each store is named only in the files it names.
@Suite struct StoreSeamTests {
    /// Each store: its folder, and its `SourceFormat` cases.
    static let stores: [(folder: String, cases: [String])] = [
        ("AppStore", ["appStoreNotifications"]), ("RevenueCat", ["revenueCatExport", "revenueCatWebhooks"]),
        ("GooglePlay", ["googlePlay", "googlePlayOrders"]),
    ]

    /// The paths the walk-through ("A new store format") names; `<Store>` stands for the store's
    /// folder name, a file name's start.
    static func namedFiles() throws -> [String] {
        let document = try String(contentsOf: repositoryRoot.appending(path: "docs/architecture.md"), encoding: .utf8)
        let bullet = try #require(document.components(separatedBy: "- **A new store format**").dropFirst().first)
            .components(separatedBy: "\n- **")[0]
        return bullet.matches(of: /`(Sources\/[^`]+\.swift)`/).map { String($0.output.1) }
    }

    /// The names a store's folder declares for the other targets (no private or fileprivate one),
    /// and its format cases.
    static func names(of store: (folder: String, cases: [String])) throws -> Set<String> {
        var names = Set(store.cases)
        for (target, file, source) in try LayerTests.sourceFiles()
        where target == "OfferLabStoreSources" && file.hasPrefix(store.folder + "/") {
            for line in source.split(separator: "\n") where !line.hasPrefix(" ") && !line.hasPrefix("//") {
                let words = line.split(separator: " ")
                guard !words.contains(where: { $0 == "private" || $0 == "fileprivate" }),
                    let index = words.firstIndex(where: { ["struct", "enum", "class", "protocol", "typealias"].contains($0) }),
                    index + 1 < words.count
                else { continue }
                names.insert(String(words[index + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
            }
        }
        return names
    }

    /// The files of Sources/ outside the store's folder that name one of `names` (as a whole word).
    static func filesNaming(_ names: Set<String>, outside folder: String) throws -> [String] {
        try LayerTests.sourceFiles().compactMap { target, file, source in
            let path = "Sources/\(target)/\(file)"
            guard !path.hasPrefix("Sources/OfferLabStoreSources/\(folder)/") else { return nil }
            let words = Set(source.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
            return words.isDisjoint(with: names) ? nil : path
        }.sorted()
    }

    /// Whether `path` is the walk-through's `pattern` for the store of `folder`: `<Store>` is its
    /// folder name, `*` any name in the same folder.
    static func isNamed(_ path: String, by pattern: String, store folder: String) -> Bool {
        let pattern = pattern.replacingOccurrences(of: "<Store>", with: folder)
        guard let star = pattern.firstIndex(of: "*") else { return path == pattern }
        let (head, tail) = (pattern[..<star], pattern[pattern.index(after: star)...])
        return path.hasPrefix(head) && path.hasSuffix(tail) && path.count >= head.count + tail.count
            && !path.dropFirst(head.count).dropLast(tail.count).contains("/")
    }

    @Test func theWalkThroughNamesAtMostFourFiles() throws {
        let named = try Self.namedFiles()
        #expect(!named.isEmpty && named.count <= 4, "\(named)")
    }

    /// For each store, the files that name it outside its folder are among the walk-through's: a
    /// mention anywhere else fails. The source registry names every store; the generator's files
    /// only the stores it writes.
    @Test(arguments: stores.map(\.folder))
    func aStoreIsNamedOnlyWhereTheWalkThroughSays(_ folder: String) throws {
        let store = try #require(Self.stores.first { $0.folder == folder })
        let names = try Self.names(of: store)
        #expect(names.count > 5, "\(names)")
        let found = try Self.filesNaming(names, outside: folder)
        let named = try Self.namedFiles()
        let elsewhere = found.filter { path in !named.contains { Self.isNamed(path, by: $0, store: folder) } }
        #expect(elsewhere == [], "files outside \(folder)/ that name its types or formats, and that the walk-through does not name")
        #expect(found.contains("Sources/OfferLabStoreSources/SourceFormat.swift"), "the registry of sources does not name \(folder)")
    }

    /// Each file the walk-through names names some store: it names no file for nothing.
    @Test func everyFileTheWalkThroughNamesNamesAStore() throws {
        let named = try Self.namedFiles()
        var found: [(folder: String, paths: [String])] = []
        for store in Self.stores { found.append((store.folder, try Self.filesNaming(try Self.names(of: store), outside: store.folder))) }
        for pattern in named {
            #expect(
                found.contains { folder, paths in paths.contains { Self.isNamed($0, by: pattern, store: folder) } },
                "\(pattern) names nothing of any store")
        }
    }
}
