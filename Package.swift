// swift-tools-version: 6.0
import PackageDescription

/// On x86-64, cull's own code is built for x86-64-v2 (LLVM's `nehalem`: POPCNT, SSE4.2), the
/// baseline RHEL 9 requires and every x86-64 processor since 2013 has (Intel since 2008, AMD
/// since 2007; Atoms from Silvermont on). Candidate search compares hashes by popcount: with
/// the instruction a million photos' search took 12.6-15.7 s against 14.4-17.6 s for the same
/// code without it (bench/RESULTS.md, "Hardware popcount"). `CULL_PORTABLE_BUILD=1` builds
/// for any x86-64; `cull` and `cull-worker` say so at start when this processor lacks what
/// the build needs (`CPUBaseline`).
let cpuBaseline: [SwiftSetting] = {
    #if arch(x86_64)
    if Context.environment["CULL_PORTABLE_BUILD"] != "1" {
        return [.unsafeFlags(["-target-cpu", "nehalem"]), .define("CULL_X86_64_V2")]
    }
    #endif
    return []
}()

let strictSwift6: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
] + cpuBaseline

let package = Package(
    name: "cull",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "cull", targets: ["Coordinator"]),
        .executable(name: "cull-worker", targets: ["Worker"]),
        .executable(name: "cull-bench", targets: ["CullBench"]),
        .library(name: "Shared", targets: ["Shared"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        // Metrics: swift-metrics' API, Prometheus' registry and text format, served over HTTP
        // by a small swift-nio server (`MetricsEndpoint`).
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The daemons' settings: flags, environment, configuration file (`LayeredArguments`).
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
    ],
    targets: [
        // No pkgConfig here: libzmq.pc pulls in krb5-gssapi's "-isystem" flags, which SwiftPM
        // refuses with a warning on every build. zmq.h is in /usr/include and the module map
        // links libzmq itself.
        .systemLibrary(
            name: "CZeroMQ",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .systemLibrary(
            name: "CSystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // glibc's <malloc.h>: grouping hands the pages its batches freed back (malloc_trim).
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(
            name: "CTurboJPEG",
            pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]
        ),
        .systemLibrary(
            name: "CPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]
        ),
        .systemLibrary(
            name: "CWebP",
            pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"])]
        ),
        .systemLibrary(
            name: "CLibRaw",
            providers: [.apt(["libraw-dev"])]
        ),
        .systemLibrary(
            name: "CTIFF",
            pkgConfig: "libtiff-4",
            providers: [.apt(["libtiff-dev"])]
        ),
        .systemLibrary(
            name: "CExif",
            pkgConfig: "libexif",
            providers: [.apt(["libexif-dev"])]
        ),
        .systemLibrary(
            name: "CHeif",
            pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]
        ),
        .target(
            name: "Shared",
            dependencies: [
                "CZeroMQ",
                "CSystemd",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "Analysis",
            dependencies: [
                "CTurboJPEG",
                "CPNG",
                "CWebP",
                "CHeif",
                "CTIFF",
                "CLibRaw",
                "CExif",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSwift6
        ),
        .executableTarget(
            name: "Worker",
            dependencies: [
                "Shared",
                "CZeroMQ",
                "Analysis",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSwift6
        ),
        .executableTarget(
            name: "Coordinator",
            dependencies: [
                "Shared",
                "CZeroMQ",
                "CMalloc",
                "Analysis",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the walk's per-file lookup (RawStatement).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSwift6
        ),
        // Throughput benchmarks (bench/throughput.sh): generates camera-like photo sets and
        // measures the worker's analysis in process.
        .executableTarget(
            name: "CullBench",
            dependencies: [
                "Analysis",
                "Shared",
                "CZeroMQ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "SharedTests",
            dependencies: ["Shared", "CZeroMQ", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "AnalysisTests",
            dependencies: ["Analysis", "CHeif", "CTurboJPEG"],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "CoordinatorTests",
            dependencies: [
                "Coordinator", "Shared",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "WorkerTests",
            dependencies: ["Worker", "Shared", "Analysis"],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "Coordinator", "Worker", "Shared", "Analysis", "CZeroMQ",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift6
        ),
    ]
)
