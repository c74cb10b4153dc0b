import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// `POST /v1/me/password`: a signed-in user sets a new password, proving it is them with the
/// current one, or (an account without a password, signed up with Apple) with a fresh Sign in
/// with Apple token, which is how such an account adds a password. The account's other
/// sessions end unless `keepOtherSessions`; the address is told.
struct PasswordController: Sendable {
    let users: UserStore
    let email: EmailStore
    let hasher: PasswordHasher
    let reauthentication: Reauthentication

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticatedWhileSuspended.post("/v1/me/password", use: change)
    }

    @Sendable func change(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: PasswordChangeRequest.self, context: context)
        try Credentials.validateNewPassword(body.newPassword)
        guard let record = try await users.user(id: user.userID) else { throw ServiceError.notFound("User") }
        try await reauthentication.confirm(
            record, password: body.currentPassword, appleIdentityToken: body.appleIdentityToken, nonce: body.nonce)
        let ended = try await email.changePassword(
            userID: user.userID, newHash: try await hasher.hash(body.newPassword), keepSession: user.sessionID,
            keepOthers: body.keepOtherSessions ?? false)
        context.logger.info("password changed", metadata: ["sessions_ended": "\(ended)"])
        return Response(status: .noContent)
    }
}
