import Configuration
import Contracts
import Foundation
import Hummingbird
import Prometheus

/// The entry point every executable's `App.swift` calls: read configuration, bootstrap
/// observability, build, run; a configuration problem is printed plainly with exit code 1.
public enum ServiceMain {
    public static func run<App: ApplicationProtocol>(
        _ name: ServiceName, build: @Sendable (ConfigReader, PrometheusCollectorRegistry) async throws -> App
    ) async {
        do {
            let reader = try await ConfigReader.pinhole()
            let registry = try Observability.bootstrap(name, reader: reader)
            let app = try await build(reader, registry)
            try await app.runService()
        } catch let error as ConfigurationError {
            print("\(name.rawValue): configuration error: \(error.description)")
            exit(1)
        } catch {
            print("\(name.rawValue): failed: \(error)")
            exit(1)
        }
    }
}
