import AsyncHTTPClient
import Crypto
import Foundation
import Hummingbird
import NIOCore
import ServiceHTTP
import Synchronization
import TestSupport

@testable import AlertsService
@testable import AuthService
@testable import Gateway

/// A gateway in front of a real auth service and an "upstream" that records what reaches it,
/// all in this process on real ports over mutual TLS, and (with `alerts`) the real alerts
/// service. Services that are not started point at ports nobody listens on.
struct GatewayHarness {
    let directory: TestDataDirectory
    let gatewayURL: String
    private let owner: ClientOwner
    var client: HTTPClient { owner.client }
    let recorder: UpstreamRecorder
    /// Where alerts listens (started with `alerts: true`).
    let alertsURL: String
    /// Where the recording upstream (media and moderation) listens.
    let upstreamPort: Int
    private let running: [RunningApplication]

    static func start(
        gateway config: [String: String] = [:], publicTLS: Bool = false, alerts: Bool = false
    ) async throws -> GatewayHarness {
        let directory = try TestDataDirectory.make()
        let (authPort, upstreamPort, gatewayPort) = (try FreePort.next(), try FreePort.next(), try FreePort.next())
        var urls: [String: String] = ["services.auth.url": "https://127.0.0.1:\(authPort)"]
        for service in [ServiceName.media, .moderation] {
            urls["services.\(service.rawValue).url"] = "https://127.0.0.1:\(upstreamPort)"
        }
        for service in [ServiceName.feed, .streak, .alerts] {
            urls["services.\(service.rawValue).url"] = "https://127.0.0.1:\(try FreePort.next())"
        }

        let auth = try await AuthService.buildApplication(
            reader: directory.reader(urls.merging(["http.port": "\(authPort)"]) { $1 }))
        let recorder = UpstreamRecorder()
        let upstreamRuntime = try ServiceRuntime(
            name: .moderation, reader: directory.reader(urls.merging(["http.port": "\(upstreamPort)"]) { $1 }))
        let upstream = try upstreamRuntime.makeApplication(
            ServiceParts(router: recorder.router(runtime: upstreamRuntime)))

        var gatewayConfig = urls.merging(["http.port": "\(gatewayPort)"]) { $1 }
        var scheme = "http"
        if publicTLS {
            let certificate = directory.url.appendingPathComponent("pki/public.crt")
            let key = directory.url.appendingPathComponent("pki/public.key")
            try LocalAuthority(dataDirectory: directory.url).issueServerCertificate(
                hostNames: ["localhost"], certificateFile: certificate, keyFile: key)
            gatewayConfig["public.tls.certificate"] = certificate.path
            gatewayConfig["public.tls.key"] = key.path
            scheme = "https"
        }
        gatewayConfig.merge(config) { $1 }
        let gateway = try await Gateway.buildApplication(reader: directory.reader(gatewayConfig))

        var running = [
            try await RunningApplication.start(auth), try await RunningApplication.start(upstream),
        ]
        if alerts {
            let alertsPort = URL(string: urls["services.alerts.url"]!)!.port!
            running.append(
                try await RunningApplication.start(
                    AlertsService.buildApplication(
                        reader: directory.reader(
                            urls.merging(["http.port": "\(alertsPort)"]) { $1 }
                                .merging(config.filter { $0.key.hasPrefix("alerts.") }) { $1 }))))
        }
        running.append(try await RunningApplication.start(gateway))
        let client = try TestHTTP.client(dataDirectory: directory.url, identity: nil)
        let harness = GatewayHarness(
            directory: directory, gatewayURL: "\(scheme)://127.0.0.1:\(gatewayPort)", owner: ClientOwner(client),
            recorder: recorder, alertsURL: urls["services.alerts.url"]!, upstreamPort: upstreamPort, running: running)
        // Generous: at the start of a full run every suite starts its servers on two cores at once.
        let up = await eventually(timeout: .seconds(60)) {
            (try? await client.call(.GET, harness.gatewayURL + "/health/live"))?.status == 200
        }
        guard up else {
            await harness.stop()
            throw ConfigurationError("gateway did not start")
        }
        return harness
    }

    func stop() async {
        try? await client.shutdown()
        for app in running.reversed() { await app.stop() }
        directory.remove()
    }

    /// Shuts the gateway down gracefully (the services stay up; ``stop()`` stops them).
    func stopGateway() async {
        await running.last?.stop()
    }

    func url(_ path: String) -> String { gatewayURL + path }

    /// Registers and signs in through the gateway.
    func signUp(_ email: String) async throws -> TokenResponse {
        _ = try await client.call(
            .POST, url("/v1/auth/register"), json: RegisterRequest(email: email, password: "long enough"))
        return try await client.call(
            .POST, url("/v1/auth/login"), json: LoginRequest(email: email, password: "long enough")
        )
        .decode(TokenResponse.self)
    }
}

/// Shuts its client down when the last copy of the harness goes, so a test that threw before
/// `stop()` fails alone: AsyncHTTPClient traps on a client released while running, which took
/// the whole test process down with it.
final class ClientOwner: Sendable {
    let client: HTTPClient

    init(_ client: HTTPClient) {
        self.client = client
    }

    deinit {
        client.shutdown { _ in }
    }
}

/// What the fake upstream saw.
final class UpstreamRecorder: Sendable {
    private let state = Mutex<(hits: Int, bytes: Int)>((0, 0))
    /// `GET /v1/reports/hold`, `/v1/media/hold`: requests held now, the most ever held at once,
    /// and whether to let them go.
    private let held = Mutex<(now: Int, most: Int, released: Bool)>((0, 0, false))

    var hits: Int { state.withLock { $0.hits } }
    var bytesReceived: Int { state.withLock { $0.bytes } }
    var heldNow: Int { held.withLock { $0.now } }
    var mostHeld: Int { held.withLock { $0.most } }
    /// Lets every held request (and any still to come) answer.
    func release() { held.withLock { $0.released = true } }

    struct Sink: Codable, Sendable {
        var bytes: Int
        var sha256: String
    }

    func router(runtime: ServiceRuntime) -> Router<ServiceRequestContext> {
        let router = runtime.makeRouter(context: ServiceRequestContext.self)
        _ = runtime.makeRoutes(on: router, verifier: runtime.makeTokenVerifier(), readiness: [:])
        // Echoes the headers it received (and a POST's body, as `:body`).
        router.on("/v1/reports/echo", method: .get) { request, _ in try self.echo(request) }
        router.on("/v1/reports/echo", method: .post) { request, _ in
            let body = try await request.body.collect(upTo: 1 << 20)
            return try self.echo(request, body: String(buffer: body))
        }
        // Hashes a streamed body, counting bytes as they arrive.
        router.post("/v1/media/sink") { request, _ -> Response in
            self.state.withLock { $0.hits += 1 }
            var hasher = SHA256()
            var total = 0
            for try await chunk in request.body {
                total += chunk.readableBytes
                hasher.update(data: Data(chunk.readableBytesView))
                self.state.withLock { $0.bytes += chunk.readableBytes }
            }
            let digest = Hex.encode(hasher.finalize())
            return try Response.json(Sink(bytes: total, sha256: digest))
        }
        // Refuses from the head alone, as a handler that checks who is asking before the body,
        // and sends its answer's body a moment after the head (as a long answer arrives).
        router.post("/v1/media/refuse") { _, _ -> Response in
            self.state.withLock { $0.hits += 1 }
            return Response(
                status: .forbidden, headers: [.contentType: "text/plain"],
                body: ResponseBody { writer in
                    try await Task.sleep(for: .seconds(1))
                    try await writer.write(ByteBuffer(string: "Not for you."))
                    try await writer.finish(nil)
                })
        }
        // Holds each request until ``release()``, counting how many it holds at once (a JSON
        // route's path and an upload route's).
        for path in ["/v1/reports/hold", "/v1/media/hold"] {
            router.get(RouterPath(path)) { _, _ -> Response in
                self.held.withLock {
                    $0.now += 1
                    $0.most = max($0.most, $0.now)
                }
                defer { self.held.withLock { $0.now -= 1 } }
                while !self.held.withLock({ $0.released }) { try await Task.sleep(for: .milliseconds(10)) }
                return Response(status: .ok)
            }
        }
        return router
    }

    private func echo(_ request: Request, body: String? = nil) throws -> Response {
        state.withLock { $0.hits += 1 }
        var headers: [String: String] = [:]
        if let body { headers[":body"] = body }
        for field in request.headers {
            headers[field.name.canonicalName, default: ""] +=
                (headers[field.name.canonicalName] == nil ? "" : ",") + field.value
        }
        return try Response.json(headers)
    }
}
