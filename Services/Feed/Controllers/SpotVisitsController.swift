import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Being at a spot: `POST /v1/spots/{id}/check-ins`, `PUT /v1/spots/{id}/rating`, and coming
/// near one: `POST /v1/spots/nearby`.
struct SpotVisitsController: Sendable {
    let store: FeedStore
    let settings: FeedSettings.Spots
    let clock: any WallClock
    let entropy: any Entropy

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.post("/v1/spots/:id/check-ins", use: checkIn)
        routes.authenticated.put("/v1/spots/:id/rating", use: rate)
        routes.authenticated.post("/v1/spots/nearby", use: nearby)
    }

    /// SkateHubba's geofence trigger: the phone reports where it is (`{lat, lng}`, from a region
    /// it monitors or a background location update). The answer is the nearest spot within
    /// `feed.spots.nearbyRadiusM` (or none), and whether the caller was told of it now with a
    /// `spot_nearby` notification and push (deep link `/spots/{id}`; the `spot_nearby`
    /// preference turns the push off). Told at most once a spot per
    /// `feed.spots.nearbyRepeatHours`, and of one spot per `feed.spots.nearbyGapMinutes`;
    /// never of one's own spots.
    @Sendable func nearby(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: CheckInRequest.self, context: context)
        let place = try Coordinate(latitude: body.lat, longitude: body.lng)
        let found = try await store.spotNearby(for: user.userID, at: place, rules: settings.nearby, now: clock.now())
        return try Response.json(SpotNearbyAnswer(spot: found?.spot.contract, notified: found?.told ?? false))
    }

    /// Checks in where the caller stands, within `feed.spots.checkInRadiusM` of the spot (400
    /// otherwise); once a (UTC) day, again answering the first (200). The first ever is `201`
    /// with `firstVisit`, and unlocks the spot (`spot_unlocked`).
    @Sendable func checkIn(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Spot")
        let body = try await request.decodeJSON(as: CheckInRequest.self, context: context)
        let place = try Coordinate(latitude: body.lat, longitude: body.lng)
        let now = clock.now()
        guard
            let found = try await store.checkIn(
                spot: id, by: user.userID, at: place, maxDistance: settings.checkInRadius, now: now,
                checkInID: entropy.uuid().uuidString.lowercased())
        else { throw ServiceError.notFound("Spot") }
        return try Response.json(
            found.record.contract(firstVisit: found.firstVisit), status: found.created ? .created : .ok)
    }

    /// 1–5 stars, one rating per user, changeable; answers the spot with its new mean.
    @Sendable func rate(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Spot")
        let body = try await request.decodeJSON(as: SpotRatingRequest.self, context: context)
        guard (1...5).contains(body.stars) else { throw ServiceError.validation("`stars` is 1 to 5.") }
        guard let spot = try await store.rate(spot: id, by: user.userID, stars: body.stars, at: clock.now()) else {
            throw ServiceError.notFound("Spot")
        }
        return try Response.json(spot.contract)
    }
}
