import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ServiceHTTP

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show each process of the stack and its health.")

    @OptionGroup var options: StackOptions

    @Option(
        help: ArgumentHelp(
            "Check only this service, on 127.0.0.1 at the port of services.<name>.url, presenting its own certificate: a container's probe.",
            discussion: "Prints one line; exit code 0 when it answers 200."))
    var only: ServiceName?

    @Flag(help: "With --only: ask whether it is alive (/health/live) rather than ready (/health/ready).")
    var live = false

    func run() async throws {
        if let only {
            return try await probe(only)
        }
        let settings = try await options.settings()
        let record = try? JSONDecoder().decode(
            StackRecord.self, from: Data(contentsOf: StackRecord.file(in: settings.dataDirectory)))
        let probe = try HealthProbe(settings: settings)
        defer { probe.shutdown() }
        let gatewayURL = record?.gatewayURL ?? "http://\(options.host):\(options.gatewayPort)"
        var healthy = true
        let columns = [12, 9, 13, 10, 10, 9]
        func row(_ cells: [String]) -> String {
            zip(cells, columns + [0]).map { $1 == 0 ? $0 : $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                .joined()
        }
        say(row(["PROCESS", "PID", "HEALTH", "RESTARTS", "UPTIME", "VERSION", "URL"]))
        for name in ServiceName.executables {
            let url = name == .gateway ? gatewayURL : settings.url(of: name).absoluteString
            let entry = record?.processes.first { $0.name == name.rawValue }
            let reading = await probe.check(name, gatewayURL: gatewayURL)
            healthy = healthy && reading.health == .ready
            let pid = entry.map { kill($0.pid, 0) == 0 ? String($0.pid) : "\($0.pid)?" } ?? "-"
            let health = entry?.state == .running || entry == nil ? reading.health.rawValue : entry!.state.rawValue
            let uptime = entry.map {
                $0.state == .running ? Self.duration(Date().timeIntervalSince($0.startedAt)) : "-"
            }
            say(
                row([
                    name.rawValue, pid, health, entry.map { String($0.restarts) } ?? "-", uptime ?? "-",
                    reading.version ?? "-", url,
                ]))
        }
        if let entry = record?.processes.first(where: { $0.name == Supervisor.replication }) {
            let alive = entry.state == .running && kill(entry.pid, 0) == 0
            say(
                row([
                    entry.name, alive ? String(entry.pid) : "\(entry.pid)?", alive ? "running" : entry.state.rawValue,
                    String(entry.restarts),
                    alive ? Self.duration(Date().timeIntervalSince(entry.startedAt)) : "-", "-", entry.url,
                ]))
            healthy = healthy && alive
        }
        let reader = try await options.reader()
        if let replication = try ReplicationSettings.read(reader) {
            healthy = await showReplication(replication, data: settings.dataDirectory) && healthy
        }
        if !healthy { throw ExitCode(1) }
    }

    /// Each database's replica: the newest transaction Litestream took locally, the newest in
    /// the replica, and how long the oldest one not yet shipped has waited. Unhealthy when the
    /// replica cannot be read or lags by more than 10 s.
    private func showReplication(_ replication: ReplicationSettings, data: URL) async -> Bool {
        let plan = LitestreamPlan(replication: replication, dataDirectory: data, metricsAddress: nil)
        let config = Replicate.configurationFile(in: data)
        guard FileManager.default.fileExists(atPath: config.path),
            let litestream = try? LitestreamPlan.executable(replication.litestream)
        else {
            say("replication to \(replication.url): not running (no run/litestream.yml, or no litestream)")
            return false
        }
        say("")
        say("DATABASE    LOCAL TXID  REPLICA TXID  LAG")
        var healthy = true
        for lag in await ReplicaLag.measure(plan, config: config, litestream: litestream) {
            let seconds = lag.seconds.map { String(format: "%.1fs", $0) } ?? "unknown"
            healthy = healthy && (lag.seconds.map { $0 <= 10 } ?? false)
            say(
                [
                    lag.name.padding(toLength: 12, withPad: " ", startingAt: 0),
                    (lag.local.map { String($0) } ?? "-").padding(toLength: 12, withPad: " ", startingAt: 0),
                    (lag.replica.map { String($0) } ?? "-").padding(toLength: 14, withPad: " ", startingAt: 0),
                    seconds,
                ].joined())
        }
        return healthy
    }

    /// One service, from inside its own container: Kubernetes' exec probes.
    private func probe(_ name: ServiceName) async throws {
        guard name != .gateway, name != .pinhole else {
            throw ValidationError("--only takes a service; probe the gateway with HTTP on /health/live")
        }
        let settings = try ServiceSettings(name: name, reader: try await options.reader())
        let client = InternalClient(tls: try TLSMaterial(paths: settings.pki), settings: settings)
        let path = live ? "/health/live" : "/health/ready"
        let port = settings.url(of: name).port ?? settings.port
        var request = HTTPClientRequest(url: "https://127.0.0.1:\(port)\(path)")
        request.method = .GET
        let status: UInt?
        do {
            let response = try await client.execute(request, timeout: .seconds(4))
            status = response.status.code
            say("\(name.rawValue) \(path) \(response.status.code)")
        } catch {
            status = nil
            say("\(name.rawValue) \(path) down: \(error)")
        }
        try? await client.http.shutdown()
        if status != 200 { throw ExitCode(1) }
    }

    /// `42s`, `5m07s`, `3h05m`, `2d04h`.
    static func duration(_ seconds: TimeInterval) -> String {
        let total = max(Int(seconds), 0)
        let (days, hours, minutes, rest) = (total / 86_400, total / 3600 % 24, total / 60 % 60, total % 60)
        if days > 0 { return "\(days)d" + String(format: "%02dh", hours) }
        if hours > 0 { return "\(hours)h" + String(format: "%02dm", minutes) }
        if minutes > 0 { return "\(minutes)m" + String(format: "%02ds", rest) }
        return "\(rest)s"
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

    /// A process's health and the release it reports.
    struct Reading {
        var health: Health
        var version: String?
    }

    func check(_ name: ServiceName, gatewayURL: String) async -> Reading {
        do {
            let response: InternalResponse
            if name == .gateway {
                var request = HTTPClientRequest(url: gatewayURL + "/health/live")
                request.method = .GET
                let answer = try await client.execute(request, timeout: .seconds(2))
                response = InternalResponse(
                    status: answer.status, headers: answer.headers, body: try await answer.body.collect(upTo: 64 * 1024)
                )
            } else {
                response = try await client.send(.GET, to: name, path: "/health/ready", timeout: .seconds(2))
            }
            let report = try? response.decode(HealthReport.self)
            return Reading(health: response.status.code == 200 ? .ready : .unready, version: report?.version)
        } catch {
            return Reading(health: .down)
        }
    }

    func shutdown() {
        try? client.http.syncShutdown()
    }
}

extension ServiceName: ExpressibleByArgument {}
