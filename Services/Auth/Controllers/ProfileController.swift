import Contracts
import Hummingbird
import ServiceKit

/// Usernames and one's own profile: `GET /v1/auth/check-username/{username}` (StreakSnap's
/// check on blur, before an account exists) and `PATCH /v1/me`.
struct ProfileController: Sendable {
    let users: UserStore
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("/v1/auth/check-username/:username", use: checkUsername)
        routes.authenticated.patch("/v1/me", use: update)
    }

    /// Whether the name can be had now: `available`, or why not (`invalid`, `reserved`,
    /// `taken`). Always 200 for a name of sane length: the app asks as the user types.
    @Sendable func checkUsername(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let name = try context.parameters.require("username")
        guard name.count <= 64 else { throw ServiceError.validation("A username is at most 20 characters.") }
        let refusal: UsernameRules.Refusal?
        switch UsernameRules.key(name) {
        case .failure(let reason): refusal = reason
        case .success(let key): refusal = try await users.usernameRefusal(of: key, at: clock.now())
        }
        return try Response.json(
            UsernameAvailability(username: name, available: refusal == nil, reason: refusal?.rawValue))
    }

    /// Changes the display name and the username (those given); answers the profile.
    @Sendable func update(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: ProfileUpdate.self, context: context)
        let displayName = try body.displayName.map { try Credentials.displayName($0, email: "") }
        if let username = body.username { _ = try UsernameRules.requireKey(username) }
        guard
            let record = try await users.updateProfile(
                userID: user.userID, displayName: displayName, username: body.username, at: clock.now())
        else { throw ServiceError.notFound("User") }
        return try Response.json(record.profile(roles: try await users.roles(userID: user.userID)))
    }
}
