// swift-tools-version: 6.2
import PackageDescription

// Release builds leave out the run-time exclusivity checks (3.5 % of a run's instructions, in
// the per-line paths) and inline across the pipeline's targets, as within one (`public`
// declarations only: docs/architecture.md#the-package-is-a-tool); debug builds, which the tests
// use, keep the checks.
let releaseSpeed: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked", "-cross-module-optimization"], .when(configuration: .release))
]

let package = Package(
    name: "OfferLab",
    platforms: [.macOS(.v15)],
    // A tool, not libraries: the one product is the command, and the targets share their API as
    // `package`, so the release flags above may stay (docs/architecture.md#the-package-is-a-tool).
    products: [.executable(name: "offerlab", targets: ["offerlab"])],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        // X.509 chain building and P-256 ECDSA: what Apple's App Store Server Library verifies
        // signed notifications with (docs/input-formats.md#verification).
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        // System libraries (Debian: zlib1g-dev, libsqlite3-dev), each wrapped by one Swift type.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // ISA-L's gzip inflater, optional: built against its header when present (libisal-dev),
        // loaded at run time (libisal.so.2); without either, zlib is used.
        .target(name: "CIsal"),
        // SIMD helpers for the JSON scanner and the CSV/TSV parser: SSE2 (`static inline`, inlined
        // into Swift), and the JSON quote bitmap with AVX2 where the CPU has it.
        .target(name: "COfferLabSIMD"),
        // System calls Swift's Glibc module does not export (atomic folder exchange), and XXH64
        // (the parsed-log cache's hash).
        .target(name: "COfferLabSystem"),

        // The words every layer shares, and nothing else: a decision's status and inference, a
        // product's billing period, a compared metric, the unit of time (docs/architecture.md,
        // "The vocabulary").
        .target(name: "OfferLabVocabulary", swiftSettings: releaseSpeed),
        // Pure statistics on per-group sufficient statistics: no I/O.
        .target(name: "OfferLabStatistics", dependencies: ["OfferLabVocabulary"], swiftSettings: releaseSpeed),
        // Projected revenue per user after 365 days, on the members' money events: no I/O
        // (docs/statistics.md#projected-revenue-per-user-after-365-days).
        .target(name: "OfferLabProjection", dependencies: ["OfferLabStatistics", "OfferLabVocabulary"], swiftSettings: releaseSpeed),
        // Bytes in, fields out: gzip (read and written), lines, JSON/CSV/TSV records, timestamps, prices.
        .target(
            name: "OfferLabIngest", dependencies: ["OfferLabVocabulary", "CZlib", "CIsal", "COfferLabSIMD"], swiftSettings: releaseSpeed),
        // The stores' formats (docs/input-formats.md#store-sources-in-a-job): App Store Server
        // Notifications, RevenueCat's export and webhooks, read into the records that become the
        // events of the purchase logs (docs/input-formats.md#purchase-logs).
        .target(
            name: "OfferLabStoreSources",
            dependencies: [
                "OfferLabVocabulary",
                "OfferLabIngest", "COfferLabSystem", .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: releaseSpeed),
        // Synthetic data sets in the input formats (`offerlab generate`), and the App Store test
        // signer that signs their App Store form and the tests' notifications: code for tests,
        // which no target but the command line imports (LayerTests).
        .target(
            name: "OfferLabGenerate",
            dependencies: [
                "OfferLabStoreSources", "OfferLabSupport", "OfferLabIngest", "OfferLabStatistics",
                .product(name: "X509", package: "swift-certificates"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]),
        // The pipeline, one target per layer, each depending only on those before it (bytes to
        // reports; docs/architecture.md, checked by LayerTests):
        // What every layer shares: errors, concurrency, interning, folders, SQLite, progress.
        .target(name: "OfferLabSupport", dependencies: ["OfferLabIngest", "CSQLite", "COfferLabSystem"], swiftSettings: releaseSpeed),
        // The job file: its keys, defaults and checks.
        .target(
            name: "OfferLabJob",
            dependencies: [
                "OfferLabVocabulary",
                "OfferLabSupport", "OfferLabIngest", "OfferLabStatistics", "OfferLabStoreSources", .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: releaseSpeed),
        // The offering catalog and the assignment table.
        .target(
            name: "OfferLabTables", dependencies: ["OfferLabVocabulary", "OfferLabJob", "OfferLabSupport", "OfferLabIngest"],
            swiftSettings: releaseSpeed),
        // The log files read into event records (with the parsed-log cache).
        .target(
            name: "OfferLabEvents",
            dependencies: [
                "OfferLabTables", "OfferLabJob", "OfferLabStoreSources", "OfferLabSupport", "OfferLabIngest", "COfferLabSystem",
            ],
            swiftSettings: releaseSpeed),
        // Clean-up, attribution, the daily series and slices: the per-group sufficient statistics.
        .target(
            name: "OfferLabAnalysis",
            dependencies: [
                "OfferLabVocabulary",
                "OfferLabEvents", "OfferLabTables", "OfferLabJob", "OfferLabSupport", "OfferLabIngest", "OfferLabStatistics",
                "OfferLabProjection",
            ],
            swiftSettings: releaseSpeed),
        // The typed night: the analysis's results and their statistics.
        .target(
            name: "OfferLabResults",
            dependencies: [
                "OfferLabAnalysis", "OfferLabEvents", "OfferLabJob", "OfferLabSupport", "OfferLabStatistics", "OfferLabProjection",
            ],
            swiftSettings: releaseSpeed),
        // The writers: the typed night's tables, CSV files, the results database.
        .target(
            name: "OfferLabWriters",
            dependencies: [
                "OfferLabVocabulary",
                "OfferLabResults", "OfferLabAnalysis", "OfferLabEvents", "OfferLabTables", "OfferLabJob", "OfferLabSupport",
                "OfferLabIngest",
                "OfferLabStatistics", "OfferLabProjection",
            ],
            swiftSettings: releaseSpeed),
        // The HTML report, from the typed night as the run made it or the database gives it back.
        .target(
            name: "OfferLabReport",
            dependencies: [
                "OfferLabVocabulary",
                "OfferLabWriters", "OfferLabEvents", "OfferLabTables", "OfferLabJob", "OfferLabSupport", "OfferLabIngest",
                "OfferLabStatistics",
            ],
            swiftSettings: releaseSpeed),
        // The warehouse route: the SQL generator, and `offerlab stats` on the sums it computes.
        .target(
            name: "OfferLabWarehouse",
            dependencies: [
                "OfferLabVocabulary",
                "OfferLabWriters", "OfferLabAnalysis", "OfferLabTables", "OfferLabJob", "OfferLabSupport", "OfferLabIngest",
                "OfferLabStatistics", "OfferLabProjection", "OfferLabResults", "OfferLabEvents",
            ],
            swiftSettings: releaseSpeed),
        // The orchestration: `offerlab run`'s stages in order, and the decompression baseline.
        .target(
            name: "OfferLab",
            dependencies: [
                "OfferLabVocabulary",
                "OfferLabWarehouse", "OfferLabReport", "OfferLabWriters", "OfferLabResults", "OfferLabAnalysis", "OfferLabEvents",
                "OfferLabTables", "OfferLabJob", "OfferLabStoreSources", "OfferLabSupport", "OfferLabIngest", "OfferLabStatistics",
            ],
            swiftSettings: releaseSpeed
        ),
        // The command line: parses options and hands them to the library.
        .executableTarget(
            name: "offerlab",
            dependencies: [
                "OfferLabVocabulary",
                "OfferLab", "OfferLabWarehouse", "OfferLabReport", "OfferLabWriters", "OfferLabJob", "OfferLabSupport", "OfferLabIngest",
                "OfferLabStatistics",
                "OfferLabGenerate", "OfferLabStoreSources", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Speed of reading App Store Server Notifications
        // (docs/performance-history.md#store-sources-revenuecat-app-store-server-notifications):
        // `swift build -c release --product store-sources-benchmark`, then
        // `store-sources-benchmark [NOTIFICATIONS]`, or on a generated data set
        // (`offerlab generate --format app_store_notifications`) `… generate DIR USERS [FORMAT]` and `… read DIR`.
        .executableTarget(
            name: "store-sources-benchmark", dependencies: ["OfferLabStoreSources", "OfferLabGenerate"],
            path: "Benchmarks/StoreSourcesBenchmark/Sources/store-sources-benchmark"),

        // What the test targets share: temporary folders and files.
        .target(name: "OfferLabTestSupport", dependencies: ["OfferLabIngest"], path: "Tests/OfferLabTestSupport"),
        .testTarget(name: "OfferLabVocabularyTests", dependencies: ["OfferLabVocabulary"]),
        .testTarget(
            name: "OfferLabStatisticsTests", dependencies: ["OfferLabStatistics", "OfferLabVocabulary"], resources: [.copy("Reference")]),
        .testTarget(name: "OfferLabProjectionTests", dependencies: ["OfferLabProjection", "OfferLabStatistics", "OfferLabVocabulary"]),
        .testTarget(
            name: "OfferLabIngestTests", dependencies: ["OfferLabIngest", "OfferLabGenerate", "OfferLabStatistics", "OfferLabTestSupport"]),
        .testTarget(
            name: "OfferLabStoreSourcesTests", dependencies: ["OfferLabStoreSources", "OfferLabGenerate", "OfferLabTestSupport"]),
        .testTarget(name: "OfferLabGenerateTests", dependencies: ["OfferLabGenerate", "OfferLabIngest", "OfferLabStatistics"]),
        .testTarget(
            name: "OfferLabTests",
            dependencies: [
                "OfferLab", "OfferLabWarehouse", "OfferLabReport", "OfferLabWriters", "OfferLabResults", "OfferLabAnalysis",
                "OfferLabEvents",
                "OfferLabTables",
                "OfferLabJob", "OfferLabStoreSources", "OfferLabSupport", "OfferLabIngest", "OfferLabStatistics", "OfferLabGenerate",
                "OfferLabProjection", "OfferLabVocabulary",
                "OfferLabTestSupport",
            ],
            exclude: ["Fixtures"]),
    ]
)
