import Configuration
import Contracts
import Foundation
import Hummingbird
import NIOCore
import Prometheus
import ServiceLifecycle
import UnixSignals

/// The entry point every executable's `App.swift` calls: read configuration, bootstrap
/// observability, build, run; a configuration problem is printed plainly with exit code 1.
///
/// `<executable> --list-migrations` prints the names of the database migrations this build
/// knows (`migrationNames`; none for the gateway), one per line, and exits: how `pinhole
/// restore` refuses a backup from a newer schema.
public enum ServiceMain {
    public static func run<App: ApplicationProtocol>(
        _ name: ServiceName, migrationNames: () -> [String] = { [] },
        build: @Sendable (ConfigReader, PrometheusCollectorRegistry) async throws -> App
    ) async {
        if CommandLine.arguments.dropFirst().first == "--list-migrations" {
            for identifier in migrationNames() { print(identifier) }
            exit(0)
        }
        OpenFileLimit.raise()
        do {
            let reader = try await ConfigReader.pinhole()
            // Before anything makes NIO's shared group, which reads its size once.
            if let loops = try ServiceSettings.eventLoops(reader) { NIOSingletons.groupLoopCountSuggestion = loops }
            let observability = try Observability.bootstrap(name, reader: reader)
            let app = try await build(reader, observability.registry)
            // Stopped in reverse order: the application first, then the exporters, which send
            // what the last requests made.
            try await ServiceGroup(
                configuration: .init(
                    services: observability.services + [app], gracefulShutdownSignals: [.sigterm, .sigint],
                    logger: app.logger)
            ).run()
        } catch let error as ConfigurationError {
            print("\(name.rawValue): configuration error: \(error.description)")
            exit(1)
        } catch {
            print("\(name.rawValue): failed: \(error)")
            exit(1)
        }
    }
}
