import Foundation
import Testing

/// The targets' layers, from bytes to reports (README "Layout", docs/architecture.md): a target
/// may import, and depend on, only targets of earlier layers, never one of its own or a later
/// one. A new target gets a layer here before anything builds on it.
@Suite struct LayerTests {
    static let layers: [[String]] = [
        // The vocabulary and the system libraries depend on nothing: any layer may use them.
        ["OfferLabVocabulary", "CZlib", "CIsal", "COfferLabSIMD", "COfferLabSystem", "CSQLite"],
        // The pure statistics (on the vocabulary); bytes in, fields out.
        ["OfferLabStatistics", "OfferLabIngest"],
        // The revenue projection (pure, on the statistics).
        ["OfferLabProjection"],
        // The stores' formats, and what the pipeline's layers share.
        ["OfferLabStoreSources", "OfferLabSupport"],
        // The generator of data sets, with the App Store test signer: code for tests (`testCodeTarget`).
        ["OfferLabGenerate"],
        ["OfferLabJob"],
        ["OfferLabTables"],
        ["OfferLabEvents"],
        ["OfferLabAnalysis"],
        ["OfferLabResults"],
        ["OfferLabWriters"],
        // The HTML report and the warehouse route: neither uses the other.
        ["OfferLabReport", "OfferLabWarehouse"],
        // The orchestration, then the command line.
        ["OfferLab"],
        ["offerlab"],
    ]

    static func layer(of target: String) -> Int? { layers.firstIndex { $0.contains(target) } }

    /// The target of code for tests: the data-set generator, and the App Store test signer whose
    /// root the tests trust. Of the later layers only the command line (`offerlab generate`) uses
    /// it; the orchestration and the pipeline do not, so a run never goes through test code.
    static let testCodeTarget = "OfferLabGenerate"
    static let targetsUsingTestCode: Set = ["offerlab"]

    /// The test code among `imports` that `target` may not use.
    static func testCodeUsed(by target: String, imports: [String]) -> [String] {
        targetsUsingTestCode.contains(target) ? [] : imports.filter { $0 == testCodeTarget }
    }

    /// The test signers (types named `…TestSigner`) a Swift file declares.
    static func testSigners(in source: String) -> [String] {
        source.matches(of: /(?:struct|class|enum|actor)\s+(\w+TestSigner)\b/).map { String($0.output.1) }
    }

    /// The project's modules among `imports` that `target` may not use: those of its own layer
    /// or a later one (a module of no layer is not the project's: Foundation, Yams).
    static func wrongWay(_ target: String, imports: [String]) -> [String] {
        guard let own = layer(of: target) else { return imports.filter { layer(of: $0) != nil } }
        return imports.filter { $0 != target && (layer(of: $0) ?? -1) >= own }
    }

    /// The modules a Swift file imports (`import X`, `@testable import X`, `import struct X.Y`).
    static func imports(in source: String) -> [String] {
        source.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ").map(String.init)
            guard let at = words.firstIndex(of: "import"), words[..<at].allSatisfy({ $0.hasPrefix("@") }), at + 1 < words.count else {
                return nil
            }
            let kinds: Set = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
            let name = kinds.contains(words[at + 1]) && at + 2 < words.count ? words[at + 2] : words[at + 1]
            return String(name.split(separator: ".")[0])
        }
    }

    /// Each target of Package.swift with the project's targets it depends on (the tests' own
    /// targets, in Tests/, and the benchmarks', in Benchmarks/, left out).
    static func packageDependencies(_ manifest: String) -> [(target: String, dependencies: [String])] {
        let declaration = /\.(?:target|executableTarget|systemLibrary)\(\s*name:\s*"([^"]+)"/
        return manifest.matches(of: declaration).compactMap { match in
            // The declaration's arguments: up to the parenthesis that closes it.
            var depth = 0
            var end = match.range.upperBound
            for index in manifest[match.range.lowerBound...].indices {
                if manifest[index] == "(" { depth += 1 }
                if manifest[index] == ")" {
                    depth -= 1
                    if depth == 0 {
                        end = index
                        break
                    }
                }
            }
            let arguments = manifest[match.range.upperBound..<end]
            guard !arguments.contains("path: \"Tests/") && !arguments.contains("path: \"Benchmarks/") else { return nil }
            // `.product(name:package:)` names another package's product, not one of these targets.
            let ownNames = arguments.replacing(/\.product\([^)]*\)/, with: "").matches(of: /"([^"]+)"/).map { String($0.output.1) }
            return (String(match.output.1), ownNames.filter { layer(of: $0) != nil })
        }
    }

    /// Every Swift file under Sources/, with its target (the folder) and its path in it.
    static func sourceFiles() throws -> [(target: String, file: String, source: String)] {
        let sources = repositoryRoot.appending(path: "Sources")
        var files: [(target: String, file: String, source: String)] = []
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
            let folder = sources.appending(path: target)
            for case let file as String in FileManager.default.enumerator(atPath: folder.path)! where file.hasSuffix(".swift") {
                files.append((target, file, try String(contentsOf: folder.appending(path: file), encoding: .utf8)))
            }
        }
        return files
    }

    @Test func everySourceFolderIsATargetWithALayer() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appending(path: "Sources").path)
        #expect(folders.filter { Self.layer(of: $0) == nil }.sorted() == [])
    }

    @Test func noSourceFileImportsItsOwnLayerOrALaterOne() throws {
        let wrong = try Self.sourceFiles().flatMap { file in
            Self.wrongWay(file.target, imports: Self.imports(in: file.source)).map { "\(file.target)/\(file.file) imports \($0)" }
        }
        #expect(wrong == [])
    }

    @Test func onlyTheCommandLineUsesTheGenerator() throws {
        let imports = try Self.sourceFiles().flatMap { file in
            Self.testCodeUsed(by: file.target, imports: Self.imports(in: file.source)).map { "\(file.target)/\(file.file) imports \($0)" }
        }
        #expect(imports == [])
        let manifest = try String(contentsOf: repositoryRoot.appending(path: "Package.swift"), encoding: .utf8)
        let dependencies = Self.packageDependencies(manifest).flatMap { target in
            Self.testCodeUsed(by: target.target, imports: target.dependencies).map { "\(target.target) depends on \($0)" }
        }
        #expect(dependencies == [])
    }

    /// The App Store test signer is declared in the test code's target and in no product target.
    @Test func theTestSignerLivesInTheGenerator() throws {
        let signers = try Self.sourceFiles().flatMap { file in Self.testSigners(in: file.source).map { "\(file.target): \($0)" } }
        #expect(signers == ["\(Self.testCodeTarget): AppStoreTestSigner"])
    }

    @Test func noTargetDependsOnItsOwnLayerOrALaterOne() throws {
        let manifest = try String(contentsOf: repositoryRoot.appending(path: "Package.swift"), encoding: .utf8)
        let targets = Self.packageDependencies(manifest)
        #expect(targets.count >= Self.layers.joined().count)
        let wrong = targets.flatMap { target in
            Self.wrongWay(target.target, imports: target.dependencies).map { "\(target.target) depends on \($0)" }
        }
        #expect(wrong == [])
    }

    /// The checks find an import, or a dependency, that goes the wrong way.
    @Test func wrongWaysAreFound() {
        let source =
            "import Foundation\n@testable import OfferLabAnalysis\nimport struct OfferLabWriters.CSVWriter\nimport OfferLabIngest\n"
        #expect(Self.imports(in: source) == ["Foundation", "OfferLabAnalysis", "OfferLabWriters", "OfferLabIngest"])
        #expect(Self.wrongWay("OfferLabEvents", imports: Self.imports(in: source)) == ["OfferLabAnalysis", "OfferLabWriters"])
        #expect(Self.wrongWay("OfferLabSupport", imports: ["OfferLabStoreSources"]) == ["OfferLabStoreSources"])
        #expect(Self.wrongWay("NewTarget", imports: ["Foundation", "OfferLabJob"]) == ["OfferLabJob"])
        let manifest = """
            .target(name: "OfferLabTables", dependencies: ["OfferLabJob", "OfferLabEvents", .product(name: "Yams", package: "Yams")]),
            .target(name: "OfferLabJob", dependencies: ["OfferLabSupport"], swiftSettings: releaseSpeed),
            .target(name: "OfferLabTestSupport", dependencies: ["OfferLabGenerate"], path: "Tests/OfferLabTestSupport"),
            """
        let targets = Self.packageDependencies(manifest)
        #expect(targets.map(\.target) == ["OfferLabTables", "OfferLabJob"])
        #expect(targets.map(\.dependencies) == [["OfferLabJob", "OfferLabEvents"], ["OfferLabSupport"]])
        #expect(Self.wrongWay(targets[0].target, imports: targets[0].dependencies) == ["OfferLabEvents"])
        #expect(Self.testCodeUsed(by: "OfferLab", imports: ["OfferLabWriters", "OfferLabGenerate"]) == ["OfferLabGenerate"])
        #expect(Self.testCodeUsed(by: "OfferLabWriters", imports: ["OfferLabGenerate"]) == ["OfferLabGenerate"])
        #expect(Self.testCodeUsed(by: "offerlab", imports: ["OfferLab", "OfferLabGenerate"]) == [])
        #expect(Self.testCodeUsed(by: "OfferLabGenerate", imports: ["OfferLabIngest"]) == [])
        #expect(Self.testSigners(in: "import X509\n\npublic struct AppStoreTestSigner: Sendable {\n") == ["AppStoreTestSigner"])
        #expect(Self.testSigners(in: "let signer = try AppStoreTestSigner(validFrom: from, validUntil: until)\n") == [])
    }
}
