import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// `DELETE /v1/me` and `GET /v1/me/deletion`.
///
/// Deleting needs recent proof of the account holder (the password, or a fresh Apple
/// identity token), not just an access token that may have been left on an unlocked phone.
/// Every session ends at once; the token used keeps working for `GET /v1/me/deletion` alone
/// until it expires, so the app can show progress. Apple's tokens are revoked by
/// ``DeletionWorker`` before the user row goes.
struct AccountDeletionController: Sendable {
    let users: UserStore
    let deletions: DeletionStore
    /// Checks signatures but not sessions: the deletion ended them, and its progress stays
    /// readable with the token used for it.
    let progressVerifier: TokenVerifier
    let hasher: PasswordHasher
    let apple: AppleSignIn?
    let clock: any WallClock
    let entropy: any Entropy

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticatedWhileSuspended.delete("/v1/me", use: delete)
        routes.open.group().add(middleware: AuthenticationMiddleware(verifier: progressVerifier))
            .get("/v1/me/deletion", use: progress)
    }

    @Sendable func delete(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: AccountDeletionRequest.self, context: context)
        guard let record = try await users.user(id: user.userID) else { throw ServiceError.notFound("User") }
        try await confirmPresence(of: record, with: body)
        let now = clock.now()
        guard
            let deletion = try await deletions.start(
                userID: record.id, deletionID: entropy.uuid().uuidString.lowercased(), now: now)
        else { throw ServiceError.notFound("User") }
        context.logger.info("account deletion started", metadata: ["deletion_id": "\(deletion.id)"])
        let pending = EventCatalog.subscribers(of: UserDeleted.eventType)
        return try Response.json(deletion.progress(pending: pending), status: .accepted)
    }

    @Sendable func progress(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        guard let (deletion, pending) = try await deletions.deletion(userID: user.userID) else {
            throw ServiceError.notFound("Account deletion")
        }
        return try Response.json(deletion.progress(pending: pending))
    }

    /// The password, or a fresh Apple identity token for this very account; anything else is
    /// 401 `REAUTH_REQUIRED`.
    private func confirmPresence(of user: UserRecord, with body: AccountDeletionRequest) async throws {
        if let password = body.password, let hash = user.passwordHash {
            try Credentials.validatePresentedPassword(password)
            guard await hasher.verify(password, against: hash) else { throw Self.reauthRequired }
            return
        }
        if let token = body.appleIdentityToken, let apple, let account = try await users.appleAccount(userID: user.id) {
            guard try await apple.isRecent(token, nonce: body.nonce, sub: account.sub) else {
                throw Self.reauthRequired
            }
            return
        }
        throw Self.reauthRequired
    }

    static let reauthRequired = ServiceError(
        .reauthRequired,
        "Confirm it is you: send your password, or a Sign in with Apple token from the last 10 minutes.")
}
