import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import Synchronization
import TestSupport
import Testing

@testable import FeedService

@Suite struct FeedRouterTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"
    static let carol = "00000000-0000-4000-8000-00000000000c"

    /// Media as the fake media service knows it: one ready photo per id below.
    static func media(_ index: Int, owner: String, status: MediaStatus = .ready) -> MediaSummary {
        MediaSummary(
            id: String(format: "10000000-0000-4000-8000-%012d", index), ownerId: owner, contentType: "image/jpeg",
            status: status)
    }

    static let library: [MediaSummary] =
        (1...40).map { media($0, owner: alice) } + (41...50).map { media($0, owner: carol) }
        + (101...300).map { media($0, owner: alice) } + [
            media(99, owner: alice, status: .rejected), media(97, owner: alice, status: .processing),
            media(98, owner: alice, status: .processing),
        ]

    func withFeed(
        config: [String: String] = [:], sessions: Lookup<SessionState>? = nil,
        _ body: @escaping @Sendable (ServiceHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        let harness = try ServiceHarness(.feed, config: config, sessions: sessions)
        let fake = Lookup<MediaSummary>.fixed(Dictionary(uniqueKeysWithValues: Self.library.map { ($0.id, $0) }))
        let parts = try await FeedService.buildRouter(
            runtime: harness.runtime, reader: harness.reader, dependencies: FeedDependencies(media: fake))
        try await harness.test(parts) { client in try await body(harness, client) }
    }

    func create(
        _ client: some TestClientProtocol, token: String, media: Int, lat: Double = 48.8566, lon: Double = 2.3522
    ) async throws -> Post {
        let response = try await client.post(
            "/v1/posts",
            CreatePostRequest(
                mediaId: Self.media(media, owner: "").id, caption: "#\(media)", latitude: lat, longitude: lon),
            token: token)
        #expect(response.status == .created)
        return try response.json(Post.self)
    }

    @Test func whenConfiguredOnlyUsersWithAVerifiedPhoneMayPost() async throws {
        let verified = Mutex(false)
        let sessions = Lookup<SessionState> { id in
            SessionState(
                sessionId: id, userId: Self.alice, limited: false, roles: [], phoneVerified: verified.withLock { $0 })
        }
        try await withFeed(config: ["feed.requireVerifiedPhone": "true"], sessions: sessions) { harness, client in
            let token = try await harness.token(for: Self.alice)
            let body = CreatePostRequest(mediaId: Self.media(1, owner: "").id, latitude: 1, longitude: 1)
            let refused = try await client.post("/v1/posts", body, token: token)
            #expect(refused.status == .forbidden)
            #expect(refused.error?.code == .phoneVerificationRequired)
            verified.withLock { $0 = true }
            harness.clock.advance(by: 6)  // past the session state's fresh interval
            #expect(try await client.post("/v1/posts", body, token: token).status == .created)
        }
    }

    @Test func whenConfiguredOnlyUsersWithAProvenEmailAddressMayPostOrChallenge() async throws {
        let verified = Mutex(false)
        let sessions = Lookup<SessionState> { id in
            SessionState(
                sessionId: id, userId: Self.alice, limited: false, roles: [], emailVerified: verified.withLock { $0 })
        }
        try await withFeed(config: ["accounts.requireVerifiedEmail": "true"], sessions: sessions) { harness, client in
            let token = try await harness.token(for: Self.alice)
            let body = CreatePostRequest(mediaId: Self.media(1, owner: "").id, latitude: 1, longitude: 1)
            let refused = try await client.post("/v1/posts", body, token: token)
            #expect(refused.status == .forbidden)
            #expect(refused.error?.code == .emailVerificationRequired)
            // SkateHubba: nor may they challenge anyone.
            let challenge = try await client.post(
                "/v1/challenges", CreateChallengeRequest(opponent: Self.bob), token: token)
            #expect(challenge.status == .forbidden && challenge.error?.code == .emailVerificationRequired)
            verified.withLock { $0 = true }
            harness.clock.advance(by: 6)  // past the session state's fresh interval
            #expect(try await client.post("/v1/posts", body, token: token).status == .created)
        }
    }

    @Test func whenConfiguredOnlyRecentlyAttestedSessionsMayPost() async throws {
        let attestedAt = Mutex<Date?>(nil)
        let asked = Mutex(0)
        let sessions = Lookup<SessionState> { id in
            asked.withLock { $0 += 1 }
            return SessionState(
                sessionId: id, userId: Self.alice, limited: false, roles: [], attestedAt: attestedAt.withLock { $0 })
        }
        let config = ["feed.requireAttestation": "true", "feed.attestationMaxAgeSeconds": "300"]
        try await withFeed(config: config, sessions: sessions) { harness, client in
            let token = try await harness.token(for: Self.alice)
            let body = CreatePostRequest(mediaId: Self.media(1, owner: "").id, latitude: 1, longitude: 1)
            let refused = try await client.post("/v1/posts", body, token: token)
            #expect(refused.status == .forbidden && refused.error?.code == .attestationRequired)
            // An assertion made a moment ago counts at once, although the verifier's copy of
            // the session is older: feed asks auth again before refusing.
            attestedAt.withLock { $0 = harness.clock.now() }
            let before = asked.withLock { $0 }
            #expect(try await client.post("/v1/posts", body, token: token).status == .created)
            #expect(asked.withLock { $0 } == before + 1)
            // Past the allowed age it is refused again.
            harness.clock.advance(by: 301)
            let stale = CreatePostRequest(mediaId: Self.media(2, owner: "").id, latitude: 1, longitude: 1)
            #expect(try await client.post("/v1/posts", stale, token: token).error?.code == .attestationRequired)
        }
    }

    @Test func postingNeedsYourOwnReadyMediaAndValidInput() async throws {
        try await withFeed { harness, client in
            let token = try await harness.token(for: Self.alice)
            let post = try await create(client, token: token, media: 1)
            #expect(post.authorId == Self.alice)
            #expect(post.caption == "#1")
            // The same photo again (a retry whose answer was lost): the same post, nothing new.
            let again = try await client.post(
                "/v1/posts", CreatePostRequest(mediaId: try #require(post.mediaId), latitude: 1, longitude: 1),
                token: token)
            #expect(again.status == .ok)
            #expect(try again.json(Post.self) == post)
            #expect(
                try harness.outboxEvents(MediaAttached.self) == [
                    MediaAttached(
                        mediaId: try #require(post.mediaId), ownerId: Self.alice, visibility: .public,
                        referenceType: "post",
                        referenceId: post.id)
                ])

            struct Loose: Encodable {
                var mediaId: String? = FeedRouterTests.media(2, owner: "").id
                var latitude: Double? = 10
                var longitude: Double? = 10
                var caption: String?
            }
            let bad: [(Loose, HTTPResponse.Status, ErrorCode)] = [
                // Neither words nor a photo; half a place.
                (Loose(mediaId: nil), .badRequest, .validationFailed),
                (Loose(latitude: nil), .badRequest, .validationFailed),
                (Loose(latitude: 90.5), .badRequest, .validationFailed),
                (Loose(longitude: -180.01), .badRequest, .validationFailed),
                (Loose(mediaId: "photo-1"), .badRequest, .validationFailed),
                (Loose(caption: String(repeating: "x", count: 501)), .badRequest, .validationFailed),
                (Loose(mediaId: Self.media(77, owner: "").id), .notFound, .notFound),
                (Loose(mediaId: Self.media(41, owner: "").id), .notFound, .notFound),
                (Loose(mediaId: Self.media(99, owner: "").id), .conflict, .conflict),
            ]
            for (body, status, code) in bad {
                let response = try await client.post("/v1/posts", body, token: token)
                #expect(response.status == status, "\(body)")
                #expect(response.error?.code == code, "\(body)")
            }
            let wrongType = try await client.execute(
                uri: "/v1/posts", method: .post,
                headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                body: .init(string: #"{"mediaId":"x","latitude":"north","longitude":2}"#))
            #expect(wrongType.error?.code == .malformedRequest)
            #expect(try harness.outboxTypes() == ["profile.counts_changed", "media.attached"])
        }
    }

    @Test func theScoreIsRightAfterAnySequenceOfVotes() async throws {
        try await withFeed { harness, client in
            let post = try await create(client, token: try await harness.token(for: Self.alice), media: 1)
            let voters = (0..<6).map { String(format: "20000000-0000-4000-8000-%012d", $0) }
            var tokens: [String: String] = [:]
            for voter in voters { tokens[voter] = try await harness.token(for: voter) }
            var random = SystemRandomNumberGenerator()
            var current: [String: VoteValue] = [:]
            for _ in 0..<120 {
                let voter = voters.randomElement(using: &random)!
                let value = [VoteValue.up, .down, nil].randomElement(using: &random)!
                let response =
                    if let value {
                        try await client.send(
                            .put, "/v1/posts/\(post.id)/vote", VoteRequest(value: value), token: tokens[voter])
                    } else {
                        try await client.request(.delete, "/v1/posts/\(post.id)/vote", token: tokens[voter])
                    }
                current[voter] = value
                let answered = try response.json(Post.self)
                #expect(answered.myVote == value)
                #expect(answered.upvotes == current.values.filter { $0 == .up }.count)
                #expect(answered.downvotes == current.values.filter { $0 == .down }.count)
                #expect(answered.score == answered.upvotes - answered.downvotes)
            }
            let stored = try await harness.database().read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM vote WHERE post_id = ?", arguments: [post.id])
            }
            #expect(stored == current.values.count)
            let badVote = try await client.execute(
                uri: "/v1/posts/\(post.id)/vote", method: .put,
                headers: [.authorization: "Bearer \(tokens[voters[0]]!)", .contentType: "application/json"],
                body: .init(string: #"{"value":"sideways"}"#))
            #expect(badVote.status == .badRequest)
            let unknown = try await client.send(
                .put, "/v1/posts/\(Self.bob)/vote", VoteRequest(value: .up), token: tokens[voters[0]])
            #expect(unknown.status == .notFound)
        }
    }

    @Test func nearbyListsEachPostInRangeOnceNewestFirst() async throws {
        try await withFeed { harness, client in
            let token = try await harness.token(for: Self.alice)
            let center = (lat: 40.7128, lon: -74.0060)
            // Two posts per millisecond (ties are broken by id). Posts 21–80 are in a corner of
            // the search box but outside the circle: a page that crosses them has to read past
            // more candidates than one batch. Every fifth post is far north, outside the box.
            var inside: [(createdAt: Date, id: String)] = []
            let corner = (lat: 0.8 * 5000 / 111_195, lon: 0.8 * 5000 / (111_195 * cos(center.lat * .pi / 180)))
            for index in 1...110 {
                if index % 2 == 0 { harness.clock.advance(by: 0.001) }
                let (lat, lon): (Double, Double) =
                    if index % 5 == 0 {
                        (center.lat + 0.1, center.lon)
                    } else if (21...80).contains(index) {
                        (center.lat + corner.lat, center.lon - corner.lon)
                    } else {
                        (center.lat + Double(index) * 0.0002, center.lon)
                    }
                let post = try await create(client, token: token, media: 100 + index, lat: lat, lon: lon)
                if index % 5 != 0 && !(21...80).contains(index) { inside.append((post.createdAt, post.id)) }
            }
            let expected = inside.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }.map(\.id)
            let reader = try await harness.token(for: Self.bob)
            var seen: [String] = []
            var cursor: String?
            repeat {
                let query =
                    "/v1/feed/nearby?lat=\(center.lat)&lon=\(center.lon)&radius_m=5000&limit=7"
                    + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try await client.get(query, token: reader).json(Page<Post>.self)
                #expect(page.items.allSatisfy { ($0.distanceM ?? .infinity) <= 5000 })
                seen += page.items.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen == expected)
            #expect(seen.count == 40)

            for query in [
                "lat=91&lon=0&radius_m=10", "lat=0&lon=181&radius_m=10", "lat=0&lon=0&radius_m=0",
                "lat=0&lon=0&radius_m=60000", "lon=0&radius_m=10", "lat=x&lon=0&radius_m=10",
                "lat=0&lon=0&radius_m=10&cursor=bogus", "lat=0&lon=0&radius_m=10&limit=0",
            ] {
                let response = try await client.get("/v1/feed/nearby?\(query)", token: reader)
                #expect(response.status == .badRequest, "\(query)")
            }
        }
    }

    @Test func hiddenPostsAndBlockedAuthorsLeaveTheFeed() async throws {
        try await withFeed { harness, client in
            let aliceToken = try await harness.token(for: Self.alice)
            let bobToken = try await harness.token(for: Self.bob)
            let carolToken = try await harness.token(for: Self.carol)
            let alicePost = try await create(client, token: aliceToken, media: 1)
            let carolPost = try await create(client, token: carolToken, media: 41)
            func nearby(_ token: String) async throws -> Set<String> {
                let circle = "/v1/feed/nearby?lat=48.8566&lon=2.3522&radius_m=100"
                let newest = try await client.get(circle, token: token).json(Page<Post>.self).items.map(\.id)
                // The ranked order ranks every post in the circle and skips what the reader may not see.
                let ranked = try await client.get(circle + "&sort=ranked", token: token).json(Page<Post>.self)
                #expect(Set(ranked.items.map(\.id)) == Set(newest))
                return Set(newest)
            }
            #expect(try await nearby(bobToken) == [alicePost.id, carolPost.id])

            // What `content.hidden` and `user.blocked` do, applied the way the inbox applies them.
            let outbox = harness.runtime.makeOutbox()
            try await harness.database().write { db in
                try FeedStore.hide(
                    .post, alicePost.id, at: Date(),
                    outbox: outbox, in: db)
                try BlockMirror.apply(UserBlocked(blockerId: Self.bob, blockedId: Self.carol), in: db)
            }
            #expect(try await nearby(bobToken).isEmpty)
            #expect(try await nearby(carolToken) == [carolPost.id])
            #expect(try await client.get("/v1/posts/\(alicePost.id)", token: bobToken).status == .notFound)
            // Its photo is detached: with no other reference, media lets only Alice read it by id.
            let photo = try #require(alicePost.mediaId)
            #expect(
                try harness.outboxEvents(MediaDetached.self) == [
                    MediaDetached(mediaId: photo, ownerId: Self.alice, referenceType: "post", referenceId: alicePost.id)
                ])
            #expect(try await client.get("/v1/posts/\(alicePost.id)", token: aliceToken).status == .ok)
            #expect(
                try await client.send(
                    .put, "/v1/posts/\(alicePost.id)/vote", VoteRequest(value: .up), token: aliceToken
                ).status == .notFound)
            #expect(try await client.get("/v1/posts/\(carolPost.id)", token: bobToken).status == .notFound)
            #expect(try await client.get("/v1/posts/\(Self.bob)", token: bobToken).status == .notFound)

            try await harness.database().write { db in
                try BlockMirror.apply(UserUnblocked(blockerId: Self.bob, blockedId: Self.carol), in: db)
            }
            #expect(try await nearby(bobToken) == [carolPost.id])
        }
    }

    @Test func aPostWaitsForItsMediaAndLeavesWhenTheMediaIsRejected() async throws {
        try await withFeed { harness, client in
            let alice = try await harness.token(for: Self.alice)
            let bob = try await harness.token(for: Self.bob)
            let waiting = try await create(client, token: alice, media: 97)
            let doomed = try await create(client, token: alice, media: 98)
            #expect(waiting.mediaStatus == .processing)
            func nearby() async throws -> Set<String> {
                Set(
                    try await client.get("/v1/feed/nearby?lat=48.8566&lon=2.3522&radius_m=100", token: bob)
                        .json(Page<Post>.self).items.map(\.id))
            }
            // Only the author sees a post whose video is still being processed.
            #expect(try await nearby().isEmpty)
            #expect(try await client.get("/v1/posts/\(waiting.id)", token: bob).status == .notFound)
            #expect(try await client.get("/v1/posts/\(waiting.id)", token: alice).status == .ok)

            // What `media.ready` and `media.rejected` do, applied the way the inbox applies them.
            try await harness.database().write { db in
                try FeedStore.mediaReady(
                    MediaReady(mediaId: try #require(waiting.mediaId), ownerId: Self.alice), in: db)
                try FeedStore.mediaRejected(
                    MediaRejected(
                        mediaId: try #require(doomed.mediaId), ownerId: Self.alice, reason: "cannot be decoded"), in: db
                )
                // Someone else's id changes nothing.
                try FeedStore.mediaReady(MediaReady(mediaId: try #require(doomed.mediaId), ownerId: Self.bob), in: db)
            }
            #expect(try await nearby() == [waiting.id])
            #expect(try await client.get("/v1/posts/\(waiting.id)", token: bob).json(Post.self).mediaStatus == .ready)
            #expect(try await client.get("/v1/posts/\(doomed.id)", token: bob).status == .notFound)
            let own = try await client.get("/v1/posts/\(doomed.id)", token: alice).json(Post.self)
            #expect(own.mediaStatus == .rejected)
        }
    }
}
