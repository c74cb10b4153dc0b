import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Spots: `POST /v1/spots`, `GET /v1/spots`, `GET`/`PATCH`/`DELETE /v1/spots/{id}`.
struct SpotsController: Sendable {
    let store: FeedStore
    let media: Lookup<MediaSummary>
    let settings: FeedSettings.Spots
    let maxRadius: Int
    let clock: any WallClock
    let entropy: any Entropy

    static let maxName = 80
    static let maxDescription = 1000
    static let maxTags = 10
    static let maxImages = 5

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.idempotent(routes.authenticated).post("/v1/spots", use: create)
        routes.authenticated.get("/v1/spots", use: list)
        routes.authenticated.get("/v1/spots/:id", use: show)
        routes.authenticated.patch("/v1/spots/:id", use: update)
        routes.authenticated.delete("/v1/spots/:id", use: delete)
    }

    /// A new spot; at most `feed.spots.perDay` a day (429 with `Retry-After` and the RateLimit
    /// headers). Its photos must be the creator's own and become public.
    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(as: SpotInput.self, context: context)
        guard body.name != nil, body.location != nil, let difficulty = body.difficulty else {
            throw ServiceError.validation("A spot needs `name`, `location` and `difficulty`.")
        }
        let now = clock.now()
        var record = SpotRecord(
            id: entropy.uuid().uuidString.lowercased(), creatorId: user.userID, name: "", description: "", latitude: 0,
            longitude: 0, difficulty: difficulty, createdAt: now, createdMs: JSONCoding.milliseconds(now),
            updatedAt: now)
        // The name and place are there (above); a description left out stays empty.
        try Self.apply(body, to: &record)
        let tags = try Self.tags(body.tags ?? [])
        let images = try await ownImages(body.images ?? [], of: user.userID)
        let created = try await store.createSpot(record, tags: tags, images: images, limit: settings.limit)
        var response = try Response.json(created.contract, status: .created)
        response.headers[.location] = "/v1/spots/\(record.id)"
        return response
    }

    /// Spots newest first: within `radius_m` (default 5000) of `lat`,`lon` when given, with
    /// `tag` and `difficulty` when given.
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let page = try PageRequest<TimePosition>(request: request)
        let tag = try request.queryValue("tag").map { try Self.tags([String($0)])[0] }
        let difficulty = try request.queryValue("difficulty").map { name in
            guard let level = SpotDifficulty(rawValue: String(name)) else {
                throw ServiceError.validation("`difficulty` is beginner, intermediate, advanced or pro.")
            }
            return level
        }
        let found: [FeedStore.SpotView]
        if let (center, radius) = try request.queryCircle(defaultRadius: 5000, maxRadius: maxRadius) {
            found = try await store.spots(
                near: center, radius: radius, tag: tag, difficulty: difficulty, viewer: user.userID,
                after: page.position, limit: page.limit)
        } else {
            found = try await store.spots(
                tag: tag, difficulty: difficulty, viewer: user.userID, after: page.position, limit: page.limit)
        }
        return try Response.json(
            Page(found, limit: page.limit, item: \.contract) {
                TimePosition(createdAt: $0.record.createdAt, id: $0.record.id)
            })
    }

    /// A spot's page: its counts, its mean rating, the caller's rating and visit.
    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Spot")
        guard let spot = try await store.spot(id: id, viewer: user.userID) else { throw ServiceError.notFound("Spot") }
        return try Response.json(spot.contract)
    }

    /// Changes the fields named; only its creator may (anyone else: 404).
    @Sendable func update(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Spot")
        let body = try await request.decodeJSON(as: SpotInput.self, context: context)
        let tags = try body.tags.map(Self.tags)
        var images: [String]?
        if let named = body.images { images = try await ownImages(named, of: user.userID) }
        let change = body
        guard
            let spot = try await store.updateSpot(
                id: id, by: user.userID, at: clock.now(), tags: tags, images: images,
                change: { record in try Self.apply(change, to: &record) })
        else { throw ServiceError.notFound("Spot") }
        return try Response.json(spot.contract)
    }

    @Sendable func delete(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Spot")
        guard try await store.deleteSpot(id: id, by: user.userID) else { throw ServiceError.notFound("Spot") }
        return Response(status: .noContent)
    }

    // MARK: - Validation

    /// Sets the fields `input` names on `record`, or throws 400 for the first that is invalid.
    static func apply(_ input: SpotInput, to record: inout SpotRecord) throws {
        if let name = input.name?.trimmingCharacters(in: .whitespacesAndNewlines) {
            guard (1...maxName).contains(name.unicodeScalars.count) else {
                throw ServiceError.validation("`name` is 1 to \(maxName) characters.")
            }
            record.name = name
        }
        if let description = input.description?.trimmingCharacters(in: .whitespacesAndNewlines) {
            guard description.unicodeScalars.count <= maxDescription else {
                throw ServiceError.validation("`description` is at most \(maxDescription) characters.")
            }
            record.description = description
        }
        if let location = input.location {
            let point = try Coordinate(latitude: location.lat, longitude: location.lng)
            let address = location.address?.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (address?.unicodeScalars.count ?? 0) <= 200 else {
                throw ServiceError.validation("`location.address` is at most 200 characters.")
            }
            (record.latitude, record.longitude) = (point.latitude, point.longitude)
            record.address = address?.isEmpty == true ? nil : address
        }
        if let difficulty = input.difficulty { record.difficulty = difficulty }
    }

    /// Lowercased, unique, in order; each 1–30 letters, digits, `-` or `_` (Unicode code points
    /// of the letter and number categories, as the API document's `\p{L}` and `\p{N}`); at most 10.
    static func tags(_ tags: [String]) throws -> [String] {
        guard tags.count <= maxTags else { throw ServiceError.validation("At most \(maxTags) tags.") }
        var seen: [String] = []
        for tag in tags {
            guard (1...30).contains(tag.unicodeScalars.count), tag.unicodeScalars.allSatisfy(isTagScalar)
            else { throw ServiceError.validation("A tag is 1 to 30 letters, digits, `-` or `_`.") }
            let tag = tag.lowercased()
            if !seen.contains(tag) { seen.append(tag) }
        }
        return seen
    }

    private static func isTagScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber,
            .letterNumber, .otherNumber:
            true
        default: scalar == "-" || scalar == "_"
        }
    }

    /// `ids` when each is one of `user`'s photos that media did not reject; at most five.
    func ownImages(_ ids: [String], of user: String) async throws -> [String] {
        guard ids.count <= Self.maxImages else { throw ServiceError.validation("At most \(Self.maxImages) images.") }
        var checked: [String] = []
        for id in ids {
            let id = try ObjectID.field(id, "images")
            guard let summary = try await media.find(id), summary.ownerId == user else {
                throw ServiceError.notFound("Media")
            }
            guard summary.contentType.hasPrefix("image/"), summary.status != .rejected else {
                throw ServiceError.validation("Spot images are your own photos.")
            }
            if !checked.contains(id) { checked.append(id) }
        }
        return checked
    }
}
