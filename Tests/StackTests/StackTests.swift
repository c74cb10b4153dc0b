import AsyncHTTPClient
import Foundation
import NIOHTTP1
import ServiceHTTP
import TestSupport
import Testing

/// The real executables, started as an operator would, driven over the network.
@Suite(.serialized) struct StackTests {
    /// Calls the gateway and checks the answer against the public API description.
    func call(
        _ stack: Stack, _ document: OpenAPIDocument, _ method: NIOHTTP1.HTTPMethod, _ path: String,
        token: String? = nil, json: (any Encodable)? = nil, headers: [(String, String)] = []
    ) async throws -> FullResponse {
        let response = try await stack.client.call(method, stack.url(path), token: token, json: json, headers: headers)
        let problems = document.check(method: method.rawValue, path: path, status: response.status, body: response.body)
        #expect(problems.isEmpty, "\(problems)")
        return response
    }

    @Test func signUpSignInAndStayTrustworthyWhenThingsGoWrong() async throws {
        try await Stack.start(publicTLS: true).run(lines: 30) { try await exercise($0) }
    }

    func exercise(_ stack: Stack) async throws {
        let document = try OpenAPIDocument.load()

        // Register, sign in, `/v1/me` through the gateway over HTTP/2 with TLS.
        let registered = try await call(
            stack, document, .POST, "/v1/auth/register",
            json: RegisterRequest(email: "alice@example.com", password: "correct horse battery", displayName: "Alice"))
        #expect(registered.status == 202)
        let traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        let login = try await call(
            stack, document, .POST, "/v1/auth/login",
            json: LoginRequest(
                email: "alice@example.com", password: "correct horse battery", device: DeviceInfo(platform: "ios")),
            headers: [("x-pinhole-client-ip", "203.0.113.9"), ("traceparent", traceparent)])
        #expect(login.status == 200)
        #expect(login.version == .http2)
        let tokens = try login.decode(TokenResponse.self)
        let me = try await call(stack, document, .GET, "/v1/me", token: tokens.accessToken)
        #expect(me.status == 200)
        #expect(me.version == .http2)
        #expect(try me.decode(UserProfile.self).displayName == "Alice")

        // The trace a client started continues in auth's own log lines.
        #expect(
            await eventually(timeout: .seconds(5)) {
                stack.logs(of: .auth).contains { $0.contains("trace_id=0af7651916cd43dd8448eb211c80319c") }
            })

        // A client cannot smuggle an internal header through the gateway, and a caller that is
        // not the gateway cannot set it either.
        let sessions = try await call(stack, document, .GET, "/v1/auth/sessions", token: tokens.accessToken)
        #expect(try sessions.decode(Page<SessionSummary>.self).items.map(\.ipAddress) == ["127.0.0.1"])
        // Signed-in reads like these are relayed on the gateway's event loop once its connection
        // to the service there is up (the first go through the pipeline meanwhile).
        let relayed = await eventually(timeout: .seconds(20)) {
            _ = try? await stack.client.call(.GET, stack.url("/v1/me"), token: tokens.accessToken)
            let metrics = (try? await stack.client.call(.GET, stack.url("/metrics")))?.text ?? ""
            return metrics.split(separator: "\n").contains {
                $0.hasPrefix("pinhole_gateway_relayed_total ") && !$0.hasSuffix(" 0")
            }
        }
        #expect(relayed, "the gateway relayed no request")
        let direct = try await stack.internalClient.call(
            .POST, stack.serviceURL(.auth) + "/v1/auth/login",
            json: LoginRequest(email: "alice@example.com", password: "correct horse battery"),
            headers: [("x-pinhole-client-ip", "198.51.100.7")])
        #expect(direct.status == 200)
        let all = try await stack.client.call(.GET, stack.url("/v1/auth/sessions"), token: tokens.accessToken)
            .decode(Page<SessionSummary>.self)
        #expect(!all.items.contains { $0.ipAddress == "198.51.100.7" || $0.ipAddress == "203.0.113.9" })

        // Refresh rotates; the spent token is refused.
        let refreshed = try await call(
            stack, document, .POST, "/v1/auth/refresh", json: RefreshRequest(refreshToken: tokens.refreshToken))
        #expect(refreshed.status == 200)
        let rotated = try refreshed.decode(TokenResponse.self)
        #expect(try await call(stack, document, .GET, "/v1/me", token: rotated.accessToken).status == 200)

        // Without a client certificate from the authority, a service does not even finish the
        // handshake; with one, a request that skipped the gateway still needs a valid token.
        await #expect(throws: (any Error).self) {
            _ = try await stack.client.call(.GET, stack.serviceURL(.auth) + "/health/live")
        }
        let forger = try TestTokens(dataDirectory: stack.directory.url)
        let badTokens = [
            ("forged", try await forger.forged()),
            ("expired", try await forger.signed(issuedAt: Date().addingTimeInterval(-3600))),
            ("wrong audience", try await forger.signed(audience: "another-api")),
            ("alg none", forger.unsigned()),
        ]
        for (name, token) in badTokens {
            let viaGateway = try await call(stack, document, .GET, "/v1/me", token: token)
            #expect(viaGateway.status == 401, "\(name) at the gateway")
            #expect(viaGateway.errorCode == .invalidToken, "\(name) at the gateway")
            let atService = try await stack.internalClient.call(.GET, stack.serviceURL(.auth) + "/v1/me", token: token)
            #expect(atService.status == 401, "\(name) at the service")
            #expect(atService.errorCode == .invalidToken, "\(name) at the service")
        }

        // A killed service gives a fast 503, shows in the roll-up, and recovers on restart with
        // nothing lost.
        await stack.kill(.auth)
        let start = ContinuousClock.now
        let down = try await call(stack, document, .GET, "/v1/me", token: rotated.accessToken)
        #expect(ContinuousClock.now - start < .seconds(2))
        #expect(down.status == 503)
        #expect(down.errorCode == .upstreamUnavailable)
        let health = try await call(stack, document, .GET, "/health")
        #expect(health.status == 503)
        #expect(try health.decode(StackHealthReport.self).services["auth"] == .unavailable)

        try stack.launch(.auth)
        #expect(await stack.waitUntilReady(.auth))
        let back = try await call(stack, document, .GET, "/v1/me", token: rotated.accessToken)
        #expect(back.status == 200)
        #expect(try await call(stack, document, .GET, "/health").status == 200)
        let again = try await call(
            stack, document, .POST, "/v1/auth/login",
            json: LoginRequest(email: "alice@example.com", password: "correct horse battery"))
        #expect(again.status == 200)
    }
}
