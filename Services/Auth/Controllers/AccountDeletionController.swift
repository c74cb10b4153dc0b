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
    let reauthentication: Reauthentication
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
        try await reauthentication.confirm(
            record, password: body.password, appleIdentityToken: body.appleIdentityToken, nonce: body.nonce)
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
}
