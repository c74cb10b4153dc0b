// swift-tools-version:6.1
import PackageDescription

// Every target is compiled in Swift 6 language mode with strict concurrency checking.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// Tests import what they use but need not name every module that declares a member.
let testSettings: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "pinhole",
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .executable(name: "auth", targets: ["AuthService"]),
        .executable(name: "media", targets: ["MediaService"]),
        .executable(name: "feed", targets: ["FeedService"]),
        .executable(name: "streak", targets: ["StreakService"]),
        .executable(name: "alerts", targets: ["AlertsService"]),
        .executable(name: "moderation", targets: ["ModerationService"]),
        .executable(name: "gateway", targets: ["Gateway"]),
        .executable(name: "pinhole", targets: ["PinholeCLI"]),
        .library(name: "PinholeClient", targets: ["PinholeClient"]),
        .executable(name: "token-bench", targets: ["TokenBench"]),
        .executable(name: "notify-bench", targets: ["NotifyBench"]),
        .executable(name: "streak-bench", targets: ["StreakBench"]),
        .executable(name: "cluster-bench", targets: ["ClusterBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(
            url: "https://github.com/apple/swift-configuration.git", from: "1.4.0",
            traits: [.defaults, "CommandLineArguments"]),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-service-context.git", from: "1.5.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        // OTLP over HTTP only: the gRPC exporter's dependencies are not needed.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
    ],
    targets: [
        // MARK: - The Swift client apps use

        // Generated at build time from gateway/openapi.yaml (a symbolic link in the target's
        // folder), with a hand-written layer for tokens, retries and tus uploads.
        .target(
            name: "PinholeClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Client/PinholeClient",
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),

        // MARK: - Shared

        .target(
            name: "Contracts",
            path: "Shared/Contracts",
            swiftSettings: strictSettings
        ),
        .target(
            name: "ServiceKit",
            dependencies: [
                "Contracts",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "ServiceContextModule", package: "swift-service-context"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP2", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Shared/ServiceKit",
            swiftSettings: strictSettings
        ),
        // Feed's map clusters (Supercluster's algorithm): a module of its own so that
        // cluster-bench times the same code as feed, in a process of its own.
        .target(name: "MapClustering", path: "Shared/MapClustering", swiftSettings: strictSettings),
        .systemLibrary(
            name: "CArgon2",
            path: "Shared/CArgon2",
            pkgConfig: "libargon2",
            providers: [.apt(["libargon2-dev"])]
        ),
        // glibc's malloc.h (malloc_trim), which Swift's Glibc module leaves out.
        .systemLibrary(name: "CMalloc", path: "Shared/CMalloc"),
        .systemLibrary(
            name: "CVips",
            path: "Shared/CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),

        // MARK: - Executables

        .executableTarget(
            name: "AuthService",
            dependencies: [
                "ServiceKit", "Contracts", "CArgon2",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Services/Auth",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "MediaService",
            dependencies: [
                "ServiceKit", "Contracts", "CVips", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Services/Media",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "FeedService",
            dependencies: [
                "ServiceKit", "Contracts", "MapClustering", .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Services/Feed",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "StreakService",
            dependencies: ["ServiceKit", "Contracts"],
            path: "Services/Streak",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "AlertsService",
            dependencies: [
                "ServiceKit", "Contracts", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            path: "Services/Alerts",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "ModerationService",
            dependencies: [
                "ServiceKit", "Contracts", .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Services/Moderation",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "Gateway",
            dependencies: [
                "ServiceKit", "Contracts", "CMalloc",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHTTPTypesHTTP2", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            path: "gateway",
            resources: [.copy("openapi.yaml")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "PinholeCLI",
            dependencies: [
                "ServiceKit", "Contracts",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "cli",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "TokenBench",
            dependencies: [
                "ServiceKit",
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            path: "Benchmarks/TokenBench",
            swiftSettings: strictSettings
        ),
        // Drives a release stack and the fake push providers of TestSupport: not a test, so it
        // runs only when asked (scripts/bench-notifications).
        .executableTarget(
            name: "NotifyBench",
            dependencies: [
                "ServiceKit", "Contracts", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Benchmarks/NotifyBench",
            swiftSettings: testSettings
        ),
        // Seeds a million streaks into a release streak's store and times its deadline job
        // (scripts/bench-streaks); not a test.
        .executableTarget(
            name: "StreakBench",
            dependencies: ["ServiceKit", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Benchmarks/StreakBench",
            swiftSettings: testSettings
        ),
        // Times feed's cluster index in a process of its own, as pysupercluster is timed beside
        // it (scripts/bench-clusters); not a test.
        .executableTarget(
            name: "ClusterBench",
            dependencies: ["MapClustering", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Benchmarks/ClusterBench",
            swiftSettings: testSettings
        ),

        // MARK: - Tests

        .target(
            name: "TestSupport",
            dependencies: [
                "ServiceKit", "Contracts",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "ServiceKitTests",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                "ServiceKit", "TestSupport", .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "AuthServiceTests",
            dependencies: ["AuthService", "TestSupport", .product(name: "HummingbirdTesting", package: "hummingbird")],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "Gateway", "AuthService", "MediaService", "FeedService", "StreakService", "AlertsService",
                "ModerationService", "TestSupport", .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            ],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "DomainServiceTests",
            dependencies: [
                "MediaService", "FeedService", "StreakService", "AlertsService", "ModerationService", "TestSupport",
                "MapClustering",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "ContractTests",
            dependencies: [
                "AuthService", "MediaService", "FeedService", "StreakService", "AlertsService", "ModerationService",
                "TestSupport", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            resources: [.copy("Interactions")],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "ClientTests",
            dependencies: [
                "PinholeClient", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "StackTests",
            dependencies: [
                "TestSupport", "ServiceKit", "Contracts", "PinholeClient",
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            ],
            swiftSettings: testSettings
        ),
    ]
)
