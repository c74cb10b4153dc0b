import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import Contracts
@testable import FeedService

/// Spots through feed's router: who may change one, lists near a point and by
/// tag and difficulty, check-ins within reach, ratings, the daily limit, blocks and erasure.
@Suite struct SpotRouterTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"
    static let carol = "00000000-0000-4000-8000-00000000000c"

    static func mediaID(_ index: Int) -> String { String(format: "5b000000-0000-4000-8000-%012d", index) }

    static let library: [MediaSummary] = [
        MediaSummary(id: mediaID(1), ownerId: alice, contentType: "image/jpeg", status: .ready),
        MediaSummary(id: mediaID(2), ownerId: alice, contentType: "image/png", status: .ready),
        MediaSummary(id: mediaID(3), ownerId: bob, contentType: "image/jpeg", status: .ready),
        MediaSummary(id: mediaID(4), ownerId: alice, contentType: "video/mp4", status: .ready, durationMs: 15_000),
    ]

    static let venice = SpotLocation(lat: 33.9850, lng: -118.4695, address: "1800 Ocean Front Walk")

    func withFeed(
        config: [String: String] = [:],
        _ body: @escaping @Sendable (ServiceHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        let harness = try ServiceHarness(.feed, config: config)
        let media = Lookup<MediaSummary>.fixed(Dictionary(uniqueKeysWithValues: Self.library.map { ($0.id, $0) }))
        let users = Lookup<UserSummary>.fixed([
            Self.alice: UserSummary(id: Self.alice, displayName: "Alice"),
            Self.bob: UserSummary(id: Self.bob, displayName: "Bob"),
        ])
        let parts = try await FeedService.buildRouter(
            runtime: harness.runtime, reader: harness.reader, dependencies: FeedDependencies(media: media, users: users)
        )
        try await harness.test(parts) { client in try await body(harness, client) }
    }

    func create(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, _ input: SpotInput, by user: String = alice
    ) async throws -> TestResponse {
        try await client.post("/v1/spots", input, token: try await harness.token(for: user))
    }

    static func spot(
        _ name: String, at location: SpotLocation = venice, tags: [String] = [],
        difficulty: SpotDifficulty = .intermediate
    ) -> SpotInput {
        SpotInput(name: name, description: "Bowls and ledges", location: location, difficulty: difficulty, tags: tags)
    }

    @Test func onlyItsCreatorChangesASpotAndItsPhotosAreTheirsMadePublic() async throws {
        try await withFeed { harness, client in
            var input = Self.spot("Venice", tags: ["Bowl", "street", "bowl", "Скейт", "滑板", "café"])
            input.images = [Self.mediaID(2), Self.mediaID(1)]
            let created = try await create(harness, client, input)
            #expect(created.status == .created)
            let spot = try created.json(Spot.self)
            #expect(
                spot.tags == ["bowl", "café", "street", "скейт", "滑板"]
                    && spot.images == [Self.mediaID(2), Self.mediaID(1)])
            #expect(spot.location == Self.venice && spot.createdBy == Self.alice)
            #expect(spot.stats == SpotStats(checkInCount: 0, challengeCount: 0, rating: 0, ratingCount: 0))
            let attached = try harness.outboxEvents(MediaAttached.self)
            #expect(attached.map(\.mediaId) == [Self.mediaID(2), Self.mediaID(1)])
            #expect(attached.allSatisfy { $0.visibility == .public && $0.referenceType == "spot" })

            // Invalid input changes nothing.
            for bad in [
                SpotInput(name: "No place", difficulty: .pro),
                Self.spot(String(repeating: "x", count: 81)),
                // 41 accented letters typed decomposed are 82 code points: too long for 80.
                Self.spot(String(repeating: "e\u{301}", count: 41)),
                Self.spot("Bad tag", tags: ["two words"]),
                // Tags count code points, as the document's `^[\p{L}\p{N}_-]{1,30}$` does: a
                // combining accent is neither letter nor digit, 31 letters are one too many.
                Self.spot("Accent", tags: ["cafe\u{301}"]),
                Self.spot("Long tag", tags: [String(repeating: "é", count: 31)]),
                // Eleven tags are too many, even when they are one tag repeated.
                Self.spot("Tagged", tags: Array(repeating: "bowl", count: 11)),
                Self.spot("Far", at: SpotLocation(lat: 91, lng: 0)),
            ] {
                #expect(try await create(harness, client, bad).status == .badRequest)
            }
            var theirs = Self.spot("Not mine")
            theirs.images = [Self.mediaID(3)]
            #expect(try await create(harness, client, theirs).status == .notFound)
            theirs.images = [Self.mediaID(4)]
            #expect(try await create(harness, client, theirs).status == .badRequest)

            // Bob reads it but cannot change or delete it.
            let bob = try await harness.token(for: Self.bob)
            let alice = try await harness.token(for: Self.alice)
            #expect(try await client.get("/v1/spots/\(spot.id)", token: bob).json(Spot.self).name == "Venice")
            let patch = SpotInput(name: "Venice Beach", tags: ["park"], images: [])
            #expect(try await client.send(.patch, "/v1/spots/\(spot.id)", patch, token: bob).status == .notFound)
            #expect(try await client.request(.delete, "/v1/spots/\(spot.id)", token: bob).status == .notFound)
            let changed = try await client.send(.patch, "/v1/spots/\(spot.id)", patch, token: alice).json(Spot.self)
            #expect(changed.name == "Venice Beach" && changed.tags == ["park"] && changed.images.isEmpty)
            #expect(changed.description == "Bowls and ledges" && changed.difficulty == .intermediate)
            #expect(
                try await client.send(.patch, "/v1/spots/\(spot.id)", SpotInput(name: ""), token: alice).status
                    == .badRequest)

            // A challenge there takes its place and counts on it; deleting the spot keeps the
            // challenge's place.
            let challenge = try await client.post(
                "/v1/challenges", CreateChallengeRequest(opponent: Self.bob, rules: ChallengeRules(spotId: spot.id)),
                token: alice
            ).json(Challenge.self)
            #expect(challenge.latitude == Self.venice.lat && challenge.longitude == Self.venice.lng)
            #expect(try await client.get("/v1/spots/\(spot.id)", token: bob).json(Spot.self).stats.challengeCount == 1)
            let unknown = CreateChallengeRequest(
                opponent: Self.bob, rules: ChallengeRules(spotId: "5b070000-0000-4000-8000-0000000000ff"))
            #expect(try await client.post("/v1/challenges", unknown, token: alice).status == .notFound)
            #expect(try await client.request(.delete, "/v1/spots/\(spot.id)", token: alice).status == .noContent)
            #expect(try await client.get("/v1/spots/\(spot.id)", token: bob).status == .notFound)
            let kept = try await client.get("/v1/challenges/\(challenge.id)", token: alice).json(Challenge.self)
            #expect(kept.rules.spotId == nil && kept.latitude == Self.venice.lat)
        }
    }

    @Test func spotsAreListedNearAPointByTagAndDifficultyButNotAcrossABlock() async throws {
        try await withFeed { harness, client in
            let near = SpotLocation(lat: Self.venice.lat + 0.01, lng: Self.venice.lng)  // ~1.1 km north
            let far = SpotLocation(lat: 40.7, lng: -74.0)
            let bowl = try await create(harness, client, Self.spot("Bowl", tags: ["bowl"], difficulty: .pro))
                .json(Spot.self)
            harness.clock.advance(by: 1)
            let ledge = try await create(harness, client, Self.spot("Ledge", at: near, tags: ["street"]), by: Self.bob)
                .json(Spot.self)
            harness.clock.advance(by: 1)
            let nyc = try await create(harness, client, Self.spot("NYC", at: far, tags: ["street"])).json(Spot.self)
            let carol = try await harness.token(for: Self.carol)
            func ids(_ query: String) async throws -> [String] {
                try await client.get("/v1/spots?\(query)", token: carol).json(Page<Spot>.self).items.map(\.id)
            }
            let here = "lat=\(Self.venice.lat)&lon=\(Self.venice.lng)"
            #expect(try await ids("\(here)&radius_m=5000") == [ledge.id, bowl.id])
            #expect(try await ids("\(here)&radius_m=500") == [bowl.id])
            #expect(try await ids("\(here)&radius_m=5000&tag=street") == [ledge.id])
            #expect(try await ids("\(here)&radius_m=5000&difficulty=pro") == [bowl.id])
            #expect(try await ids("tag=street") == [nyc.id, ledge.id])
            #expect(try await ids("difficulty=intermediate&limit=1").count == 1)
            // Anything wrong is a 400, not a part of the question silently dropped.
            for bad in ["difficulty=expert", "radius_m=500", "lat=33.98", "\(here)&lat=1", "tag=a&tag=b"] {
                #expect(try await client.get("/v1/spots?\(bad)", token: carol).status == .badRequest, "\(bad)")
            }
            let distance =
                try await client.get("/v1/spots?\(here)&radius_m=5000", token: carol)
                .json(Page<Spot>.self).items.first?.distanceM ?? 0
            #expect(distance > 1000 && distance < 1200)

            // Bob blocks Carol: his spot leaves her lists and page.
            try await harness.database().write { db in
                try BlockMirror.apply(UserBlocked(blockerId: Self.bob, blockedId: Self.carol), in: db)
            }
            #expect(try await ids("tag=street") == [nyc.id])
            #expect(try await client.get("/v1/spots/\(ledge.id)", token: carol).status == .notFound)
        }
    }

    @Test func aSpotModerationHidesIsItsCreatorsAloneUntilRestored() async throws {
        try await withFeedRouter(library: Self.library, names: [Self.alice: "Alice", Self.bob: "Bob"]) {
            harness, client, _, store in
            var input = Self.spot("Bowl", tags: ["bowl"])
            input.images = [Self.mediaID(2), Self.mediaID(1)]
            let bowl = try await create(harness, client, input).json(Spot.self)
            let (alice, carol) = (try await harness.token(for: Self.alice), try await harness.token(for: Self.carol))
            let here = "lat=\(Self.venice.lat)&lon=\(Self.venice.lng)&radius_m=500"
            func listed(_ token: String) async throws -> [[String]] {
                var lists: [[String]] = []
                for query in [here, "tag=bowl", "difficulty=intermediate"] {
                    lists.append(
                        try await client.get("/v1/spots?\(query)", token: token).json(Page<Spot>.self).items.map(\.id))
                }
                return lists
            }
            #expect(try await listed(carol) == Array(repeating: [bowl.id], count: 3))

            let outbox = harness.runtime.makeOutbox()
            try await harness.database().write { db in
                try FeedStore.hide(.spot, bowl.id, at: harness.clock.now(), outbox: outbox, in: db)
            }
            #expect(try await listed(carol) == Array(repeating: [], count: 3))
            #expect(try await client.get("/v1/spots/\(bowl.id)", token: carol).status == .notFound)
            // Its photos are detached: nobody but Alice reads them by id either.
            #expect(
                try harness.outboxEvents(MediaDetached.self).map { [$0.mediaId, $0.ownerId, $0.referenceId] } == [
                    [Self.mediaID(2), Self.alice, bowl.id], [Self.mediaID(1), Self.alice, bowl.id],
                ])
            #expect(try await listed(alice) == Array(repeating: [bowl.id], count: 3))
            #expect(try await client.get("/v1/spots/\(bowl.id)", token: alice).status == .ok)
            // Nor can anyone but its creator report it now.
            #expect(try await store.moderationSubject(.spot, id: bowl.id, viewer: Self.carol) == nil)
            #expect(try await store.moderationSubject(.spot, id: bowl.id, viewer: Self.alice)?.id == bowl.id)

            try await harness.database().write { db in
                try FeedStore.restore(ContentRestored(targetType: .spot, targetId: bowl.id), outbox: outbox, in: db)
            }
            #expect(
                try harness.outboxEvents(MediaAttached.self).suffix(2).map { [$0.mediaId, $0.visibility.rawValue] } == [
                    [Self.mediaID(2), "public"], [Self.mediaID(1), "public"],
                ])
            #expect(try await listed(carol) == Array(repeating: [bowl.id], count: 3))
            #expect(try await client.get("/v1/spots/\(bowl.id)", token: carol).status == .ok)
        }
    }

    @Test func checkInsNeedToBeNearOnceADayAndTheFirstUnlocksTheSpot() async throws {
        try await withFeed(config: ["feed.spots.checkInRadiusM": "200"]) { harness, client in
            let spot = try await create(harness, client, Self.spot("Venice")).json(Spot.self)
            let bob = try await harness.token(for: Self.bob)
            let path = "/v1/spots/\(spot.id)/check-ins"
            let tooFar = try await client.post(
                path, CheckInRequest(lat: Self.venice.lat + 0.003, lng: Self.venice.lng), token: bob)
            #expect(tooFar.status == .badRequest)
            #expect(tooFar.error?.message.contains("within 200 m") == true)
            let here = CheckInRequest(lat: Self.venice.lat + 0.001, lng: Self.venice.lng)  // ~111 m
            let first = try await client.post(path, here, token: bob)
            #expect(first.status == .created)
            let visit = try first.json(CheckIn.self)
            #expect(visit.firstVisit && visit.distanceM > 100 && visit.distanceM < 120)
            let again = try await client.post(path, here, token: bob)
            #expect(again.status == .ok)
            #expect(try again.json(CheckIn.self) == visit)
            harness.clock.advance(by: 86400)
            let bobLater = try await harness.token(for: Self.bob)
            let tomorrow = try await client.post(path, here, token: bobLater)
            #expect(tomorrow.status == .created)
            #expect(try tomorrow.json(CheckIn.self).firstVisit == false)
            #expect(
                try harness.outboxEvents(SpotUnlocked.self) == [
                    SpotUnlocked(spotId: spot.id, spotName: "Venice", userId: Self.bob)
                ])
            let seen = try await client.get("/v1/spots/\(spot.id)", token: bobLater).json(Spot.self)
            #expect(seen.stats.checkInCount == 2 && seen.checkedIn)
            let stats = try await client.get("/v1/challenges/stats/\(Self.bob)", token: bobLater)
                .json(ChallengeStats.self)
            #expect(stats.spotsUnlocked == 1)
            // The first visit, and only it, tells auth for Bob's profile.
            #expect(try harness.outboxEvents(ProfileCountsChanged.self).map(\.challenges) == [stats])
        }
    }

    /// SkateHubba's `spot_nearby` ("Geofence trigger", deep link `/spots/{id}`): the phone
    /// reports where it is, and hears of the nearest spot once a day, of one spot an hour,
    /// never of its own.
    @Test func aPhoneNearASpotIsToldOfItOnceADayAndOfOneSpotAnHour() async throws {
        try await withFeed(config: ["feed.spots.nearbyRadiusM": "300"]) { harness, client in
            let venice = try await create(harness, client, Self.spot("Venice")).json(Spot.self)
            let pierPlace = SpotLocation(lat: Self.venice.lat + 0.0027, lng: Self.venice.lng, address: nil)  // ~300 m
            let pier = try await create(harness, client, Self.spot("Pier", at: pierPlace)).json(Spot.self)
            func report(_ lat: Double, by user: String = bob) async throws -> SpotNearbyAnswer {
                let response = try await client.post(
                    "/v1/spots/nearby", CheckInRequest(lat: lat, lng: Self.venice.lng),
                    token: try await harness.token(for: user))
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                return try response.json(SpotNearbyAnswer.self)
            }
            let bob = Self.bob
            // ~55 m from Venice: told, with how far it is.
            let first = try await report(Self.venice.lat + 0.0005)
            #expect(first.spot?.id == venice.id && first.notified)
            #expect(first.spot?.distanceM.map { $0 > 50 && $0 < 60 } == true)
            #expect(try await report(Self.venice.lat + 0.0005).notified == false)
            // Rolling on to the pier within the hour: the pier is the nearest, but not told yet.
            let atPier = try await report(pierPlace.lat)
            #expect(atPier.spot?.id == pier.id && !atPier.notified)
            harness.clock.advance(by: 61 * 60)
            #expect(try await report(pierPlace.lat).notified)
            // Back at Venice two hours on: told today already; a day later, again.
            harness.clock.advance(by: 2 * 3600)
            #expect(try await report(Self.venice.lat).notified == false)
            harness.clock.advance(by: 22 * 3600)
            #expect(try await report(Self.venice.lat).notified)
            // Alice is never told of her own spot; 5 km away there is no spot at all.
            let own = try await report(Self.venice.lat, by: Self.alice)
            #expect(own.spot?.id == venice.id && !own.notified)
            let nowhere = try await report(Self.venice.lat + 0.045)
            #expect(nowhere.spot == nil && !nowhere.notified)
            #expect(
                try harness.outboxEvents(SpotNearby.self).map { "\($0.spotName) \($0.userId)" } == [
                    "Venice \(bob)", "Pier \(bob)", "Venice \(bob)",
                ])
            let bad = try await client.post(
                "/v1/spots/nearby", CheckInRequest(lat: 91, lng: 0), token: try await harness.token(for: bob))
            #expect(bad.status == .badRequest)
        }
    }

    @Test func ratingsAreOneEachChangeableAndLeaveWithTheirUser() async throws {
        try await withFeed { harness, client in
            let spot = try await create(harness, client, Self.spot("Venice")).json(Spot.self)
            let path = "/v1/spots/\(spot.id)/rating"
            let (alice, bob) = (try await harness.token(for: Self.alice), try await harness.token(for: Self.bob))
            #expect(try await client.send(.put, path, SpotRatingRequest(stars: 6), token: bob).status == .badRequest)
            _ = try await client.send(.put, path, SpotRatingRequest(stars: 5), token: bob)
            let rated = try await client.send(.put, path, SpotRatingRequest(stars: 2), token: alice).json(Spot.self)
            #expect(rated.stats.rating == 3.5 && rated.stats.ratingCount == 2 && rated.myRating == 2)
            let changed = try await client.send(.put, path, SpotRatingRequest(stars: 3), token: bob).json(Spot.self)
            #expect(changed.stats.rating == 2.5 && changed.stats.ratingCount == 2 && changed.myRating == 3)
            _ = try await client.post(
                path.replacingOccurrences(of: "rating", with: "check-ins"),
                CheckInRequest(lat: Self.venice.lat, lng: Self.venice.lng), token: bob)

            // Bob's account goes: his rating and check-in leave the spot's counts.
            try await harness.database().write { db in
                try FeedStore.erase(
                    userID: Self.bob, jobs: JobQueue(clock: harness.clock), outbox: harness.runtime.makeOutbox(), in: db
                )
            }
            let after = try await client.get("/v1/spots/\(spot.id)", token: alice).json(Spot.self)
            #expect(after.stats == SpotStats(checkInCount: 0, challengeCount: 0, rating: 2, ratingCount: 1))
        }
    }

    @Test func spotsADayAreLimited() async throws {
        try await withFeed(config: ["feed.spots.perDay": "2"]) { harness, client in
            #expect(try await create(harness, client, Self.spot("One")).status == .created)
            harness.clock.advance(by: 3600)
            #expect(try await create(harness, client, Self.spot("Two")).status == .created)
            let refused = try await create(harness, client, Self.spot("Three"))
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[HTTPField.Name("retry-after")!] == "82800")
            #expect(refused.headers[HTTPField.Name("ratelimit-policy")!] == "\"spots\";q=2;w=86400")
            #expect(try await create(harness, client, Self.spot("Bob's"), by: Self.bob).status == .created)
            harness.clock.advance(by: 82800)
            #expect(try await create(harness, client, Self.spot("Three")).status == .created)
        }
    }
}
