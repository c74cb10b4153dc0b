import Contracts
import Hummingbird
import ServiceHTTP

/// `GET /v1/recovery-tokens`: how many streak recovery tokens the user holds and their last 20
/// transactions (bought packs reach streak as `recovery_tokens.purchased` from auth's
/// RevenueCat webhook; a Pro user's monthly tokens are credited on the first read or use of
/// the month).
struct RecoveryTokensController: Sendable {
    let store: StreakStore
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/recovery-tokens", use: balance)
    }

    @Sendable func balance(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        return try Response.json(
            try await store.recoveryTokens(of: user.userID, premium: user.premium, at: clock.now()))
    }
}
