// swift-tools-version: 6.2
// Throughput of the ingest layer, kept out of the product's package (its sources are linked in).
//
//     cd Benchmarks/IngestBenchmark
//     swift run -c release --scratch-path .build-ingest-bench ingest-benchmark [MEGABYTES]
import PackageDescription

// As the product's release builds (../../Package.swift): no run-time exclusivity checks.
let releaseSpeed: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "IngestBenchmark",
    platforms: [.macOS(.v15)],
    targets: [
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .target(name: "CIsal", path: "Sources/CIsal"),
        .target(name: "COfferLabSIMD", path: "Sources/COfferLabSIMD"),
        .target(
            name: "OfferLabIngest", dependencies: ["CZlib", "CIsal", "COfferLabSIMD"], path: "Sources/OfferLabIngest",
            swiftSettings: releaseSpeed),
        .target(name: "OfferLabStatistics", path: "Sources/OfferLabStatistics"),
        .executableTarget(
            name: "ingest-benchmark", dependencies: ["OfferLabIngest", "OfferLabStatistics"], path: "Sources/ingest-benchmark"),
    ]
)
