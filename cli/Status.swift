import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ServiceKit

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show each process of the stack and its health.")

    @OptionGroup var options: StackOptions

    func run() async throws {
        let settings = try await options.settings()
        let record = try? JSONDecoder().decode(
            StackRecord.self, from: Data(contentsOf: StackRecord.file(in: settings.dataDirectory)))
        let probe = try HealthProbe(settings: settings)
        defer { probe.shutdown() }
        let gatewayURL = record?.gatewayURL ?? "http://\(options.host):\(options.gatewayPort)"
        var healthy = true
        say("PROCESS     PID      HEALTH       URL")
        for name in ServiceName.executables {
            let url = name == .gateway ? gatewayURL : settings.url(of: name).absoluteString
            let pid = record?.processes.first { $0.name == name }?.pid
            let health = await probe.check(name, gatewayURL: gatewayURL)
            healthy = healthy && health == .ready
            let pidText = pid.map { kill($0, 0) == 0 ? String($0) : "\($0)?" } ?? "-"
            say(
                name.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)
                    + pidText.padding(toLength: 9, withPad: " ", startingAt: 0)
                    + health.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0) + url)
        }
        if !healthy { throw ExitCode(1) }
    }
}

/// Asks each process whether it is ready: the services over mutual TLS with `pinhole`'s own
/// certificate, the gateway on its public listener.
struct HealthProbe: Sendable {
    enum Health: String {
        case ready
        case unready = "not ready"
        case down
    }

    let client: InternalClient

    init(settings: ServiceSettings) throws {
        client = InternalClient(tls: try TLSMaterial(paths: settings.pki), settings: settings)
    }

    func check(_ name: ServiceName, gatewayURL: String) async -> Health {
        do {
            if name == .gateway {
                var request = HTTPClientRequest(url: gatewayURL + "/health/live")
                request.method = .GET
                let response = try await client.execute(request, timeout: .seconds(2))
                return response.status.code == 200 ? .ready : .unready
            }
            let response = try await client.send(.GET, to: name, path: "/health/ready", timeout: .seconds(2))
            return response.status.code == 200 ? .ready : .unready
        } catch {
            return .down
        }
    }

    func shutdown() {
        try? client.http.syncShutdown()
    }
}
