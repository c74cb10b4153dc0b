import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

/// Pinhole's API for an app: every operation of the public API document, generated at build
/// time (``api``, a ``Client``), signed with the stored session and refreshed when it expires,
/// with safe retries, plus sign-in helpers and resumable tus uploads.
///
/// ```swift
/// let pinhole = PinholeClient(serverURL: URL(string: "https://api.example.com")!, tokens: KeychainTokens())
/// try await pinhole.signIn(email: "ada@example.com", password: "correct horse battery")
/// let me = try await pinhole.api.me().ok.body.json
/// ```
public final class PinholeClient: Sendable {
    /// Every operation of the API, by its `operationId`.
    public let api: Client
    /// The store the session's tokens live in.
    public let tokens: any TokenStore
    /// The same operations without the session (no token, no refresh): sign-in and refresh.
    let anonymous: Client
    let retry: RetryPolicy

    /// - Parameters:
    ///   - serverURL: The gateway, e.g. `https://api.example.com`.
    ///   - tokens: Where the session is kept (the keychain in an app).
    ///   - transport: URLSession by default; AsyncHTTPClient's transport on a server.
    ///   - retry: When a request is sent again by itself.
    public init(
        serverURL: URL, tokens: any TokenStore = InMemoryTokenStore(),
        transport: any ClientTransport = URLSessionTransport(), retry: RetryPolicy = RetryPolicy()
    ) {
        let retrying = RetryMiddleware(policy: retry)
        let configuration = Configuration(dateTranscoder: PinholeDates())
        let anonymous = Client(
            serverURL: serverURL, configuration: configuration, transport: transport, middlewares: [retrying])
        let refresher = TokenRefresher(store: tokens) { refreshToken in
            switch try await anonymous.refresh(body: .json(.init(refreshToken: refreshToken))) {
            case .ok(let answer): return TokenPair(try answer.body.json)
            case .unauthorized: return nil
            case let other: throw PinholeClientError(operation: "refresh", answer: other)
            }
        }
        self.api = Client(
            serverURL: serverURL, configuration: configuration, transport: transport,
            middlewares: [
                retrying, AuthenticationMiddleware(store: tokens, refresher: refresher), TusMetadataMiddleware(),
            ])
        self.anonymous = anonymous
        self.tokens = tokens
        self.retry = retry
    }

    /// Signs in with email and password and keeps the new session.
    @discardableResult
    public func signIn(email: String, password: String) async throws -> Components.Schemas.TokenResponse {
        switch try await anonymous.login(body: .json(.init(email: email, password: password))) {
        case .ok(let answer):
            let session = try answer.body.json
            await signedIn(session)
            return session
        case let other: throw PinholeClientError(operation: "login", answer: other)
        }
    }

    /// Keeps a session another sign-in answered (Sign in with Apple, PIN, a guest token's upgrade).
    public func signedIn(_ session: Components.Schemas.TokenResponse) async {
        await tokens.save(TokenPair(session))
    }

    /// Ends the session at the server and forgets its tokens (they are forgotten even when the
    /// server cannot be reached: the refresh token is single-use and expires by itself).
    public func signOut() async throws {
        guard await tokens.load() != nil else { return }
        let answer: Operations.Logout.Output
        do {
            answer = try await api.logout()
        } catch {
            await tokens.clear()
            throw error
        }
        await tokens.clear()
        switch answer {
        case .noContent, .unauthorized: return
        case let other: throw PinholeClientError(operation: "logout", answer: other)
        }
    }
}

extension TokenPair {
    init(_ session: Components.Schemas.TokenResponse) {
        self.init(accessToken: session.accessToken, refreshToken: session.refreshToken)
    }
}

/// An answer the client's own helpers did not expect, kept whole for the caller to inspect.
public struct PinholeClientError: Error, CustomStringConvertible {
    public let operation: String
    public let answer: any Sendable

    public init(operation: String, answer: any Sendable) {
        self.operation = operation
        self.answer = answer
    }

    public var description: String { "\(operation) answered \(answer)" }
}
