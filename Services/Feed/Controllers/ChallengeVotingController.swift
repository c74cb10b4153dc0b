import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Voting and standings: `PUT /v1/challenges/{id}/vote`,
/// `GET /v1/challenges/voting?lat=&lon=&radius_m=` or `?spotId=`, `GET /v1/challenges/stats/{userId}`.
struct ChallengeVotingController: Sendable {
    let store: FeedStore
    let maxRadius: Int
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.put("/v1/challenges/:id/vote", use: vote)
        routes.authenticated.get("/v1/challenges/voting", use: voting)
        routes.authenticated.get("/v1/challenges/stats/:userId", use: stats)
    }

    /// One vote per voter, for the creator or the opponent, changeable until voting ends; the
    /// tallies stay hidden until the result. Participants cannot vote (403); a challenge whose
    /// participant blocks the voter, or is blocked by them, is not found.
    @Sendable func vote(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Challenge")
        let body = try await request.decodeJSON(as: ChallengeVoteRequest.self, context: context)
        let votedFor = try ObjectID.field(body.votedFor, "votedFor")
        guard let found = try await store.vote(challenge: id, by: user.userID, for: votedFor, at: clock.now()) else {
            throw ServiceError.notFound("Challenge")
        }
        return try Response.json(found.challenge(for: user.userID))
    }

    /// Challenges open for voting that the caller may vote on, most recently opened first:
    /// within `radius_m` of `lat`,`lon`, or at `spotId`.
    @Sendable func voting(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let page = try PageRequest<TimePosition>(request: request)
        let found: [FeedStore.ChallengeView]
        let circle = try request.queryCircle(defaultRadius: 5000, maxRadius: maxRadius)
        if let spot = try request.queryValue("spotId") {
            guard circle == nil else {
                throw ServiceError.validation("Ask by `spotId` or by `lat` and `lon`, not both.")
            }
            let spotID = try ObjectID.field(String(spot), "spotId")
            found = try await store.votingChallenges(
                at: spotID, viewer: user.userID, after: page.position, limit: page.limit)
        } else {
            guard let (center, radius) = circle else { throw ServiceError.validation("`lat` is required.") }
            found = try await store.votingChallenges(
                near: center, radius: radius, viewer: user.userID, after: page.position, limit: page.limit)
        }
        return try Response.json(
            Page(found, limit: page.limit) {
                $0.challenge(for: user.userID)
            } position: {
                TimePosition(
                    createdAt: Date(timeIntervalSince1970: Double($0.record.votingMs ?? 0) / 1000), id: $0.record.id)
            })
    }

    /// A user's points, wins, losses, draws, streak of wins and spots unlocked; a block either
    /// way is a 404.
    @Sendable func stats(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let of = try ObjectID.path(context.parameters.require("userId"), "User")
        guard let stats = try await store.stats(of: of, viewer: user.userID, at: clock.now()) else {
            throw ServiceError.notFound("User")
        }
        return try Response.json(stats)
    }
}
