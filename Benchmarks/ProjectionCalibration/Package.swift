// swift-tools-version: 6.2
// The calibration study of the 365-day projection (contract §2.14) and its speed on a million
// members, kept out of the product's package (its sources are linked in).
//
//     cd Benchmarks/ProjectionCalibration
//     swift run -c release --scratch-path .build-calibration projection-calibration study [TESTS] [USERS_PER_DAY]
//     swift run -c release --scratch-path .build-calibration projection-calibration speed [MEMBERS] [REPLICATES] [--input-only]
import PackageDescription

let package = Package(
    name: "ProjectionCalibration",
    platforms: [.macOS(.v15)],
    targets: [
        .target(name: "OfferLabStatistics", path: "Sources/OfferLabStatistics"),
        .target(name: "OfferLabProjection", dependencies: ["OfferLabStatistics"], path: "Sources/OfferLabProjection"),
        .executableTarget(
            name: "projection-calibration", dependencies: ["OfferLabProjection", "OfferLabStatistics"],
            path: "Sources/projection-calibration"),
    ]
)
