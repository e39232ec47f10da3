// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "PagedStore",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "PagedStore", targets: ["PagedStore"]),
        // For the app's tests and previews: ScriptedSource, waitUntilIdle() and the batch validator,
        // kept out of the library so that apps do not ship test doubles.
        .library(name: "PagedStoreTesting", targets: ["PagedStoreTesting"]),
        .executable(name: "pagedb", targets: ["pagedb"]),
    ],
    dependencies: [
        // The CLI and its test harness only: the library itself depends on SQLite and Foundation alone.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Documentation only: `swift package generate-documentation`; nothing links it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .yum(["sqlite-devel"])]
        ),
        .target(
            name: "PagedStore",
            dependencies: ["CSQLite"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "PagedStoreTesting",
            dependencies: ["PagedStore"],
            swiftSettings: strictSettings
        ),
        // Fixture reading, writing and generated items: for pagedb and the tests only, so that apps
        // linking PagedStore do not compile them.
        .target(
            name: "PagedStoreFixtures",
            dependencies: ["PagedStore"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "pagedb",
            dependencies: [
                "PagedStore",
                "PagedStoreFixtures",
                "PagedStoreTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        // The test tools the reliability tests run as processes (crash-writer, random-writer, outbox-writer,
        // hold-lock): built for the tests, in no product, so that the shipped pagedb holds user commands only.
        .executableTarget(
            name: "pagedb-harness",
            dependencies: [
                "PagedStore",
                "PagedStoreFixtures",
                "PagedStoreTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tests/Harness",
            swiftSettings: strictSettings
        ),
        // The fixture parser's fuzz entry point: a corpus replayer normally, a libFuzzer target with -DFUZZING.
        .executableTarget(
            name: "FuzzFixtures",
            dependencies: ["PagedStore", "PagedStoreFixtures"],
            path: "Tests/FuzzFixtures",
            swiftSettings: strictSettings
        ),
        // Helpers shared by the test targets: a real HTTP server on loopback, temporary directories,
        // a locked box for values closures share, a recorder of a feed's snapshots, and a list that
        // follows a feed and checks every change it receives.
        .target(
            name: "TestSupport",
            dependencies: ["CSQLite", "PagedStore", "PagedStoreTesting"],
            path: "Tests/TestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PagedStoreTests",
            dependencies: ["PagedStore", "PagedStoreFixtures", "PagedStoreTesting", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "pagedbTests",
            dependencies: [
                "pagedb", "pagedb-harness", "PagedStore", "PagedStoreFixtures", "PagedStoreTesting", "FuzzFixtures",
                "TestSupport",
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

/// Upcoming features that keep the code honest (see STYLE.md): no implicit existentials,
/// imports visible only where they are written, and internal imports unless marked otherwise.
var strictSettings: [SwiftSetting] {
    [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
