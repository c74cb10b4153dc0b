import Contracts
import Hummingbird
import ServiceKit

/// `GET /v1/recovery-tokens`: how many streak recovery tokens the user holds (bought packs
/// reach streak as `recovery_tokens.purchased` from auth's RevenueCat webhook).
struct RecoveryTokensController: Sendable {
    let store: StreakStore

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/recovery-tokens", use: balance)
    }

    @Sendable func balance(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        return try Response.json(RecoveryTokenBalance(balance: try await store.recoveryTokens(of: user.userID)))
    }
}
