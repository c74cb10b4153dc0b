import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import ServiceHTTP

/// Who is signed in to the console, and whether a form really comes from its own page.
///
/// The session cookie (`pinhole_console`) holds 32 random bytes; the store keeps their SHA-256.
/// It is `Secure`, `HttpOnly` and `SameSite=Strict`, scoped to `/console`, and lasts eight hours
/// at most, or less: every page asks auth (through the session cache) whether the session it was
/// opened with is still live and its user still a moderator, so signing out elsewhere, a revoked
/// role or a suspension ends console access within `token.sessionCheckSeconds`.
///
/// Every form carries the session's CSRF token, compared in constant time; a cross-site form
/// would not have it (and `SameSite=Strict` keeps the cookie off cross-site requests anyway).
/// The sign-in form, before any session, pairs a `pinhole_console_csrf` cookie with its field.
struct ConsoleGate: Sendable {
    let store: ModerationStore
    let verifier: TokenVerifier
    let clock: any WallClock
    let entropy: any Entropy

    static let sessionCookie = "pinhole_console"
    static let signInCookie = "pinhole_console_csrf"
    static let lifetime: TimeInterval = 8 * 3600

    /// A signed-in moderator's request.
    struct Visit: Sendable {
        let session: ConsoleSessionRecord
        let moderator: AuthenticatedUser
        let tokenHash: String

        /// What the layout shows a signed-in moderator.
        var layout: [String: Any] { ["moderator": moderator.userID, "csrf": session.csrfToken] }
    }

    /// The signed-in moderator, or nil: no cookie, an expired or unknown one, an auth session
    /// that ended, or a user who no longer moderates.
    func visit(_ request: Request) async throws -> Visit? {
        guard let token = Self.cookie(Self.sessionCookie, in: request.headers) else { return nil }
        let hash = Self.hash(token)
        guard let session = try await store.consoleSession(tokenHash: hash, at: clock.now()),
            let user = try await verifier.liveSession(session.authSessionId, userID: session.userId),
            user.has(.moderator)
        else { return nil }
        return Visit(session: session, moderator: user, tokenHash: hash)
    }

    /// `FORBIDDEN` unless the form's `csrf` field is `expected`, which is never empty (a form
    /// with an empty field and no cookie must not pass).
    static func check(_ field: String?, against expected: String) throws {
        guard !expected.isEmpty, let field,
            SHA256.hash(data: Data(field.utf8)) == SHA256.hash(data: Data(expected.utf8))
        else {
            throw ServiceError(.forbidden, "This form has expired: open the page again and resend it.")
        }
    }

    /// A new random token (cookie values and CSRF tokens).
    func token() -> String { Base64URL.encode(entropy.bytes(32)) }

    static func hash(_ token: String) -> String { Hex.encode(SHA256.hash(data: Data(token.utf8))) }

    /// The value of cookie `name` in the request's `Cookie` headers.
    static func cookie(_ name: String, in headers: HTTPFields) -> String? {
        for header in headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return String(parts[1]).trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// A `Set-Cookie` value for the console's path; `maxAge` 0 deletes it.
    static func setCookie(_ name: String, _ value: String, maxAge: Int) -> String {
        "\(name)=\(value); Path=/console; Max-Age=\(maxAge); Secure; HttpOnly; SameSite=Strict"
    }
}

extension Request {
    /// A console form as `Form`; anything else is a 400.
    func consoleForm<Form: Decodable>(_ type: Form.Type) async throws -> Form {
        try await decodeForm(as: type, incomplete: "The form is incomplete: open the page again and resend it.")
    }
}
