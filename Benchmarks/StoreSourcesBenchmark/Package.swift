// swift-tools-version: 6.2
// Speed of reading App Store Server Notifications: ES256 verification and decoding, kept out of
// the product's package.
//
//     cd Benchmarks/StoreSourcesBenchmark
//     swift build -c release --scratch-path .build-store-bench
//     ./.build-store-bench/release/store-sources-benchmark [NOTIFICATIONS]
//
// and on a generated data set (`offerlab generate --format app_store_notifications`):
//
//     ./.build-store-bench/release/store-sources-benchmark generate DIR USERS [FORMAT]
//     ./.build-store-bench/release/store-sources-benchmark read DIR
import PackageDescription

let package = Package(
    name: "StoreSourcesBenchmark",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "OfferLab", path: "../..")],
    targets: [
        .executableTarget(
            name: "store-sources-benchmark",
            dependencies: [
                .product(name: "OfferLabStoreSources", package: "OfferLab"), .product(name: "OfferLabGenerate", package: "OfferLab"),
            ],
            path: "Sources/store-sources-benchmark")
    ]
)
