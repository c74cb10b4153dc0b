import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// `POST /v1/auth/ban-appeal`: a banned user cannot sign in, so they appeal the ban here with
/// the account's email and password (checked and throttled as a sign-in is). Auth passes the
/// appeal to moderation, which takes it as it takes any appeal: once, decided by a moderator
/// other than the one who banned. An account that is not banned is a 409: sign in and appeal
/// from the app.
struct BanAppealsController: Sendable {
    let users: UserStore
    let hasher: PasswordHasher
    let appeals: @Sendable (BanAppeal) async throws -> Appeal

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.post("/v1/auth/ban-appeal", use: appeal)
    }

    @Sendable func appeal(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: BanAppealRequest.self, context: context)
        let email = try Credentials.normalizedEmail(body.email)
        try Credentials.validatePresentedPassword(body.password)
        let user = try await AuthController.verifiedUser(
            email: email, password: body.password, users: users, hasher: hasher)
        guard let ban = try await users.banActionID(of: user.id) else {
            throw ServiceError(.conflict, "This account is not banned: sign in and appeal from the app.")
        }
        let appeal = try await appeals(BanAppeal(userId: user.id, actionId: ban, statement: body.statement))
        context.logger.notice("ban appealed", metadata: ["user_id": "\(user.id)", "appeal_id": "\(appeal.id)"])
        return try Response.json(appeal, status: .created)
    }
}
