// swift-tools-version:6.0
import PackageDescription

/// Targets are the architecture: FoldCore is pure and everything points at it;
/// FoldHub (the hub's state machine) is pure too and sees only FoldCore;
/// FoldConfig (the option table: every flag, file key and variable) too;
/// FoldTransport alone imports libwebsockets, FoldStore alone imports SQLite,
/// FoldPostgres alone libpq, FoldCrypto alone OpenSSL;
/// FoldDaemon drives the hub over them; the executables are thin.
/// The fan-out's targets skip Swift's run-time exclusivity checks in release
/// builds: every class property touched per subscriber paid a check (5 % of
/// the daemon's CPU at 1,000 subscribers × 500 changes/s). Debug builds, and
/// so every test run, keep them.
let hotPath: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "foldsync",
    // FoldSyncKit's floor (Observation): iOS 17, macOS 14. Nothing else here is built for Apple platforms.
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .executable(name: "foldsyncd", targets: ["foldsyncd"]),
        .executable(name: "foldsync", targets: ["foldsync"]),
        .executable(name: "foldsync-bench", targets: ["foldsync-bench"]),
        // For other SwiftPM packages on Linux: a board in your own program (docs/CLIENTS.md).
        .library(name: "FoldSyncClient", targets: ["FoldSyncClient"]),
        // For iOS, iPadOS and macOS apps (and any Swift program): no C library anywhere in its graph (docs/CLIENTS.md).
        .library(name: "FoldSyncKit", targets: ["FoldSyncKit"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibWebSockets", pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]),
        .systemLibrary(
            name: "CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        // libcrypto (OpenSSL) for token hashing; already linked through libwebsockets.
        .systemLibrary(
            name: "CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        // epoll and timerfd for the benchmark's own loop (not in Swift's Glibc module).
        .systemLibrary(name: "CBenchLinux"),
        // wcwidth and the terminal size for the terminal client.
        .systemLibrary(name: "CTerminal"),
        .target(name: "FoldCore"),
        .target(name: "FoldSystem"),
        .target(name: "FoldTransport", dependencies: ["FoldCore", "FoldSystem", "CLibWebSockets"], swiftSettings: hotPath),
        .target(name: "FoldStore", dependencies: ["FoldCore", "FoldSystem", "CSQLite"]),
        // Token hashing (SHA-256) and constant-time comparison from OpenSSL.
        .target(name: "FoldCrypto", dependencies: ["FoldCore", "CCrypto"]),
        // How other threads reach an lws service thread (the daemon's and the terminal client's).
        .target(name: "FoldMailbox", dependencies: ["FoldSystem"]),
        // The PostgreSQL engine, for several daemons sharing one set of boards.
        .target(name: "FoldPostgres", dependencies: ["FoldCore", "CLibPQ"]),
        // No transport, no store, no Foundation: every decision, testable without I/O.
        .target(name: "FoldHub", dependencies: ["FoldCore"], swiftSettings: hotPath),
        .target(name: "FoldConfig", dependencies: ["FoldCore"]),
        .target(name: "FoldDaemon", dependencies: ["FoldCore", "FoldSystem", "FoldConfig", "FoldHub", "FoldTransport", "FoldStore", "FoldPostgres", "FoldMailbox", "FoldCrypto"],
                swiftSettings: hotPath),
        .executableTarget(name: "foldsyncd", dependencies: ["FoldDaemon"]),
        // The load generator: its own epoll WebSocket client (the default), or
        // FoldTransport's libwebsockets client with `--client lws`.
        .executableTarget(name: "foldsync-bench", dependencies: ["FoldCore", "FoldSystem", "FoldTransport", "CBenchLinux"]),
        // One client session as a machine (connect, resume, mirrors, outbox, pending actions): pure, for every Swift client.
        .target(name: "FoldSession", dependencies: ["FoldCore"]),
        // The Apple library: the session over a SyncTransport (URLSessionWebSocketTask), @Observable board models, the list value.
        .target(name: "FoldSyncKit", dependencies: ["FoldCore", "FoldSession"]),
        .target(name: "FoldClient", dependencies: ["FoldCore", "CTerminal"]),
        .target(name: "FoldSyncClient", dependencies: ["FoldCore", "FoldSession", "FoldSyncKit", "FoldSystem", "FoldTransport", "FoldMailbox"]),
        .executableTarget(name: "foldsync", dependencies: ["FoldCore", "FoldSession", "FoldSystem", "FoldClient", "FoldTransport", "FoldMailbox", "CTerminal"]),
        // The one daemon launcher every live test target uses (a library, not tests).
        .target(name: "FoldTestSupport", dependencies: ["FoldCore"], path: "Tests/FoldTestSupport"),
        .testTarget(name: "FoldCoreTests", dependencies: ["FoldCore", "FoldTestSupport"]),
        .testTarget(name: "FoldHubTests", dependencies: ["FoldCore", "FoldHub", "FoldCrypto", "FoldTestSupport"]),
        .testTarget(name: "FoldConfigTests", dependencies: ["FoldCore", "FoldConfig"]),
        .testTarget(name: "FoldCryptoTests", dependencies: ["FoldCore", "FoldCrypto", "FoldTestSupport"]),
        .testTarget(name: "FoldStoreTests", dependencies: ["FoldCore", "FoldStore", "FoldTestSupport"]),
        .testTarget(name: "DaemonLiveTests", dependencies: ["FoldCore", "FoldConfig", "FoldCrypto", "FoldDaemon", "FoldTestSupport", "PostgresTestSupport"]),
        .testTarget(name: "FoldDaemonTests", dependencies: ["FoldCore", "FoldConfig", "FoldHub", "FoldStore", "FoldDaemon"]),
        .testTarget(name: "FoldSystemTests", dependencies: ["FoldSystem"]),
        .testTarget(name: "FoldMailboxTests", dependencies: ["FoldMailbox", "FoldSystem"]),
        // Reads Package.swift, the sources and the docs: the arrows between targets, and every target documented.
        .testTarget(name: "LayeringTests"),
        // A real PostgreSQL server for the tests (initdb in a temporary directory, loopback, a free port).
        .target(name: "PostgresTestSupport", path: "Tests/PostgresTestSupport"),
        .testTarget(name: "FoldPostgresTests", dependencies: ["FoldCore", "FoldPostgres", "PostgresTestSupport"]),
        .testTarget(name: "FoldTransportTests", dependencies: ["FoldCore", "FoldTransport", "FoldSystem"]),
        .testTarget(name: "FoldSessionTests", dependencies: ["FoldCore", "FoldSession"]),
        .testTarget(name: "FoldSyncKitTests", dependencies: ["FoldCore", "FoldSession", "FoldSyncKit", "FoldSyncClient", "FoldTestSupport"]),
        .testTarget(name: "FoldClientTests", dependencies: ["FoldCore", "FoldSession", "FoldClient", "FoldTransport"]),
        .testTarget(name: "FoldSyncClientTests", dependencies: ["FoldCore", "FoldSession", "FoldSyncClient", "FoldTestSupport"]),
        .testTarget(name: "FoldsyncCLITests", dependencies: ["FoldClient", "FoldTestSupport", "PostgresTestSupport"]),
    ]
)
