import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Usernames and profiles: `GET /v1/auth/check-username/{username}` (an app's check as
/// a name is typed, before an account exists), `PATCH /v1/me`, `GET /v1/users/{id}` and
/// `GET /v1/users/by-username/{username}`, `GET /v1/users/search`, `GET /v1/users?ids=`.
struct ProfileController: Sendable {
    let users: UserStore
    let people: PeopleStore
    /// Asked at each profile read: streak's numbers move with time (a break at the deadline).
    let streakStats: Lookup<StreakProfileStats>
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("/v1/auth/check-username/:username", use: checkUsername)
        routes.authenticated.patch("/v1/me", use: update)
        routes.authenticated.get("/v1/users/:id", use: show)
        routes.authenticated.get("/v1/users/by-username/:username", use: showByUsername)
        routes.authenticated.get("/v1/users/search", use: search)
        routes.authenticated.get("/v1/users", use: batch)
    }

    /// `GET /v1/users?ids=`: up to 100 people as lists show them, in the order asked; an id
    /// that is unknown, deleted, or across a block is simply absent.
    @Sendable func batch(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let ids = try request.queryIDs()
        return try Response.json(Page(items: try await people.people(ids, viewer: user.userID), nextCursor: nil))
    }

    /// People by the start of their username (`kai`, `@kai`: those first) or of the words of
    /// their username and display name (FTS5), ranked as friend search ranks them
    /// (``NameSearch``); never by email, never anyone a block stands between or the searcher
    /// muted, never a PIN customer. Paged (`limit` up to 50) through the best 200.
    @Sendable func search(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let text = request.uri.queryParameters.get("q")
        let query = try NameSearch.query(text)
        guard case .words = query else {
            throw ServiceError.validation("Search people by name or username; an email address finds nobody here.")
        }
        let page = try PageRequest<OffsetPosition>(request: request, defaultLimit: NameSearch.maxResults, maximum: 50)
        let offset = page.position?.offset ?? 0
        guard (0..<Self.maxPeopleFound).contains(offset) else {
            throw ServiceError(.invalidCursor, "People search ends after \(Self.maxPeopleFound) results.")
        }
        let visible = try await users.search(
            query, usernamePrefix: NameSearch.usernamePrefix(text), viewer: user.userID, limit: Self.maxPeopleFound)
        let end = min(offset + page.limit, visible.count)
        let shown = offset < end ? Array(visible[offset..<end]) : []
        return try Response.json(
            Page(
                items: try await people.people(shown.map(\.id), viewer: user.userID),
                nextCursor: end < visible.count ? Cursor.encode(OffsetPosition(offset: end)) : nil))
    }

    /// How far people search pages.
    static let maxPeopleFound = 200

    /// A user's public profile; someone a block stands between (either way), a deleted account
    /// or a PIN customer is a 404.
    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "User")
        return try await profile(users.visibleUser(id: id, viewer: user.userID), viewer: user.userID, context: context)
    }

    /// The same, by the username the user holds now (any letter case; an old name is a 404).
    @Sendable func showByUsername(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let name = try context.parameters.requireText("username")
        guard case .success(let key) = UsernameRules.key(name.hasPrefix("@") ? String(name.dropFirst()) : name) else {
            throw ServiceError.notFound("User")
        }
        return try await profile(
            users.visibleUser(usernameKey: key, viewer: user.userID), viewer: user.userID, context: context)
    }

    /// The profile with its avatar as lists show it and its streak numbers; when streak cannot
    /// answer, the profile is still served, without them.
    private func profile(
        _ found: PublicProfile?, viewer: String, context: ServiceRequestContext
    ) async throws -> Response {
        guard var found else { throw ServiceError.notFound("User") }
        found.avatar = try await people.people([found.id], viewer: viewer).first?.avatar
        do {
            found.stats.streak = try await streakStats.find(found.id)
        } catch {
            context.logger.warning("streak numbers unavailable for a profile", metadata: ["error": "\(error)"])
        }
        return try Response.json(found)
    }

    /// A bio as stored: trimmed, at most 160 characters; empty removes it (nil).
    static func bio(_ raw: String) throws -> String? {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count <= 160 else { throw ServiceError.validation("`bio` is at most 160 characters.") }
        return text.isEmpty ? nil : text
    }

    /// Whether the name can be had now: `available`, or why not (`invalid`, `reserved`,
    /// `taken`). Always 200 for a name of sane length: the app asks as the user types.
    @Sendable func checkUsername(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let name = try context.parameters.requireText("username")
        // Counted as the API document counts (code points); any longer is not a name being typed.
        guard name.unicodeScalars.count <= 64 else {
            throw ServiceError.validation("`username` to check is at most 64 characters (a username, at most 20).")
        }
        let refusal: UsernameRules.Refusal?
        switch UsernameRules.key(name) {
        case .failure(let reason): refusal = reason
        case .success(let key): refusal = try await users.usernameRefusal(of: key, at: clock.now())
        }
        return try Response.json(
            UsernameAvailability(username: name, available: refusal == nil, reason: refusal?.rawValue))
    }

    /// Changes the display name, the username and the bio (those given); answers the profile.
    @Sendable func update(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: ProfileUpdate.self, context: context)
        let displayName = try body.displayName.flatMap(Credentials.displayName)
        if let username = body.username { _ = try UsernameRules.requireKey(username) }
        let bio = try body.bio.map(Self.bio)
        guard
            let record = try await users.updateProfile(
                userID: user.userID, displayName: displayName, username: body.username, bio: bio, at: clock.now())
        else { throw ServiceError.notFound("User") }
        return try Response.json(try await people.ownProfile(record, at: clock.now()))
    }
}
