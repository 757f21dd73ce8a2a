import Foundation
import Testing

/// The package is a tool (docs/architecture.md#the-package-is-a-tool): its one product is the
/// command; the layers up to the analysis, which another target calls per line, record or event,
/// keep their API `public` because cross-module optimisation inlines only that, and the layers
/// after it, and the generator, declare theirs `package`.
@Suite struct PackageShapeTests {
    /// The layers up to the analysis (LayerTests.layers): what another target calls per line,
    /// record or event, and the job's values their API shows (`SliceFields`).
    static let perRecordTargets: Set = [
        "OfferLabVocabulary", "OfferLabStatistics", "OfferLabIngest", "OfferLabProjection", "OfferLabStoreSources", "OfferLabSupport",
        "OfferLabJob",
        "OfferLabTables", "OfferLabEvents", "OfferLabAnalysis",
    ]
    /// The layers after the analysis, called once per night or offering, and the generator:
    /// nothing in them is `public`.
    static let packageTargets: Set = [
        "OfferLabGenerate", "OfferLabResults", "OfferLabWriters", "OfferLabReport", "OfferLabWarehouse", "OfferLab", "offerlab",
    ]

    /// The `public` declarations of a Swift file, one line each (comments and strings aside).
    static func publicDeclarations(in source: String) -> [String] {
        source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { line in
            !line.hasPrefix("//") && line.contains(/^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:static|nonisolated|final|override)\s+)*public[\s(]/)
        }
    }

    @Test func theOnlyProductIsTheCommand() throws {
        let manifest = try String(contentsOf: repositoryRoot.appending(path: "Package.swift"), encoding: .utf8)
        let products = manifest.matches(of: /\.(executable|library)\(\s*name:\s*"([^"]+)"/).map { "\($0.output.1) \($0.output.2)" }
        #expect(products == ["executable offerlab"])
    }

    @Test func everySwiftTargetHasItsAccessDecided() throws {
        let targets = Set(try LayerTests.sourceFiles().map(\.target))
        #expect(targets.subtracting(Self.perRecordTargets).subtracting(Self.packageTargets).sorted() == [])
        #expect(Self.perRecordTargets.intersection(Self.packageTargets).isEmpty)
    }

    @Test func theTargetsAboveTheRecordsDeclareNothingPublic() throws {
        let found = try LayerTests.sourceFiles().filter { Self.packageTargets.contains($0.target) }.flatMap { file in
            Self.publicDeclarations(in: file.source).map { "\(file.target)/\(file.file): \($0)" }
        }
        #expect(found == [])
    }

    /// The check finds a public declaration however it is dressed, and not the word elsewhere.
    @Test func publicDeclarationsAreFound() {
        let source = """
            public struct A {}
                @inlinable public func b() {}
                static public let c = 1
                public(set) var d = 0
            // public in a comment
                let key = publicKey
                package func e() {}
            """
        #expect(Self.publicDeclarations(in: source).count == 4)
    }
}
