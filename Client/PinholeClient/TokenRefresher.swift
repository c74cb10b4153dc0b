/// One refresh at a time. Requests that fail with 401 together (the access token expired under
/// all of them) wait for the same exchange of the refresh token; one that fails after another
/// request already refreshed takes the stored pair without asking again. The server's rotation
/// grace (`auth.refreshGraceSeconds`, 10 s) covers what this cannot: another process, or an
/// answer lost on the way, repeating an exchanged token soon after.
actor TokenRefresher {
    /// Exchanges a refresh token: the new pair, or nil when the server refuses it (sign in again).
    typealias Exchange = @Sendable (_ refreshToken: String) async throws -> TokenPair?

    private let store: any TokenStore
    private let exchange: Exchange
    private var inFlight: Task<TokenPair?, any Error>?

    init(store: any TokenStore, exchange: @escaping Exchange) {
        self.store = store
        self.exchange = exchange
    }

    /// A pair to retry with after `failedAccessToken` was refused, or nil when the session is
    /// over (the store is cleared then).
    func refreshed(after failedAccessToken: String) async throws -> TokenPair? {
        if let inFlight { return try await inFlight.value }
        // The task is in place before this actor waits on anything, so a second caller that
        // arrives meanwhile joins it instead of starting another exchange.
        let task = Task { [store, exchange] () async throws -> TokenPair? in
            guard let current = await store.load() else { return nil }
            guard current.accessToken == failedAccessToken else { return current }
            guard let renewed = try await exchange(current.refreshToken) else {
                await store.clear()
                return nil
            }
            await store.save(renewed)
            return renewed
        }
        inFlight = task
        defer { inFlight = nil }
        return try await task.value
    }
}
