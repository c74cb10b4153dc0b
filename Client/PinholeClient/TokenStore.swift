/// The pair a sign-in answers: a short-lived access token and the single-use refresh token
/// that replaces it.
public struct TokenPair: Sendable, Hashable, Codable {
    public var accessToken: String
    public var refreshToken: String

    public init(accessToken: String, refreshToken: String) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
    }
}

/// Where the client keeps the signed-in session's tokens. An iOS app implements it over the
/// keychain (`SecItemAdd`/`SecItemCopyMatching`), so a session outlives the process; tests and
/// short-lived tools use ``InMemoryTokenStore``. The client calls `save` after every sign-in and
/// refresh (the refresh token is single-use: the saved pair is the only one that still works)
/// and `clear` when the server says to sign in again.
public protocol TokenStore: Sendable {
    func load() async -> TokenPair?
    func save(_ tokens: TokenPair) async
    func clear() async
}

/// Tokens kept in memory only: gone with the process.
public actor InMemoryTokenStore: TokenStore {
    private var tokens: TokenPair?

    public init(_ tokens: TokenPair? = nil) { self.tokens = tokens }

    public func load() -> TokenPair? { tokens }
    public func save(_ tokens: TokenPair) { self.tokens = tokens }
    public func clear() { tokens = nil }
}
