import Contracts
import Hummingbird
import ServiceHTTP

/// `PUT /v1/me/avatar` (one of the user's own photos, as `{"mediaId":…}`; a
/// multipart avatar upload is an upload with purpose `avatar` then this) and
/// `DELETE /v1/me/avatar`. Profiles, people search and every user summary then carry the
/// photo's square thumbnail as `avatarURL`; media makes it public for as long as it is the avatar.
struct AvatarController: Sendable {
    let users: UserStore
    let people: PeopleStore
    let media: Lookup<MediaSummary>
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.put("/v1/me/avatar", use: set)
        routes.authenticated.delete("/v1/me/avatar", use: remove)
    }

    /// The photo must be the user's (anyone else's, or none, is a 404) and a processed image.
    @Sendable func set(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: AvatarUpdate.self, context: context)
        let id = try ObjectID.field(body.mediaId, "mediaId")
        guard let photo = try await media.find(id), photo.ownerId == user.userID else {
            throw ServiceError.notFound("Media")
        }
        guard photo.contentType.hasPrefix("image/") else {
            throw ServiceError.validation("An avatar is a photo (JPEG, PNG, HEIC or WebP), not \(photo.contentType).")
        }
        switch photo.status {
        case .ready: break
        case .processing: throw ServiceError(.conflict, "This photo is still being processed; try again shortly.")
        case .held: throw ServiceError(.conflict, "This photo is held for a moderator's review.")
        case .rejected: throw ServiceError(.mediaRejected, "This photo was rejected by processing; upload another one.")
        }
        return try await answer(users.setAvatar(userID: user.userID, photo: photo, at: clock.now()), user: user)
    }

    /// Back to no avatar; the photo is the owner's alone again (unless a post shows it).
    @Sendable func remove(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        return try await answer(users.setAvatar(userID: user.userID, photo: nil, at: clock.now()), user: user)
    }

    private func answer(_ record: UserRecord?, user: AuthenticatedUser) async throws -> Response {
        guard let record else { throw ServiceError.notFound("User") }
        return try Response.json(try await people.ownProfile(record, at: clock.now()))
    }
}
