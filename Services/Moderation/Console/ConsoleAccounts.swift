import Foundation
import NIOHTTP1
import ServiceHTTP

/// How the console signs a moderator in and out: with auth's own sign-in (the moderator's
/// email and password, checked and throttled by auth), over mutual TLS, and by ending the
/// session it opened when they sign out.
struct ConsoleAccounts: Sendable {
    enum SignIn: Sendable {
        case signedIn(accessToken: String, sessionID: String)
        /// Auth refused: its error, to show.
        case refused(status: Int, ErrorBody)
    }

    var signIn: @Sendable (_ email: String, _ password: String) async throws -> SignIn
    var end: @Sendable (_ sessionID: String, _ userID: String) async throws -> Void

    static func live(_ client: InternalClient) -> ConsoleAccounts {
        ConsoleAccounts(
            signIn: { email, password in
                let response = try await client.post(
                    LoginRequest(
                        email: email, password: password, device: DeviceInfo(platform: "web", version: "console")),
                    to: .auth, path: "/v1/auth/login")
                if response.status == .ok {
                    let tokens = try response.decode(TokenResponse.self)
                    return .signedIn(accessToken: tokens.accessToken, sessionID: tokens.sessionId)
                }
                guard (400..<500).contains(response.status.code), let error = response.errorEnvelope?.error else {
                    throw ServiceError(.upstreamUnavailable, "The auth service answered \(response.status.code).")
                }
                return .refused(status: Int(response.status.code), error)
            },
            end: { sessionID, userID in
                let response = try await client.post(
                    SessionEnd(userId: userID), to: .auth, path: "/internal/sessions/\(sessionID)/end")
                // 404: it had already ended, which is what signing out wants.
                guard response.status == .noContent || response.status == .notFound else {
                    throw ServiceError(.upstreamUnavailable, "The auth service answered \(response.status.code).")
                }
            })
    }
}
