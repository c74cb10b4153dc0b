import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import FeedService

/// Challenges through feed's router: every move, every read rule, the limits.
@Suite struct ChallengeRouterTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"
    static let carol = "00000000-0000-4000-8000-00000000000c"
    static let dave = "00000000-0000-4000-8000-00000000000d"
    static let erin = "00000000-0000-4000-8000-00000000000e"
    static let frank = "00000000-0000-4000-8000-00000000000f"

    static func mediaID(_ index: Int) -> String { String(format: "c1000000-0000-4000-8000-%012d", index) }

    /// Media as the fake media service knows it: clips of 15 s (ready or still processing), a
    /// photo and a clip too long.
    static let library: [MediaSummary] = [
        MediaSummary(id: mediaID(1), ownerId: alice, contentType: "video/mp4", status: .ready, durationMs: 15_000),
        MediaSummary(id: mediaID(2), ownerId: bob, contentType: "video/mp4", status: .processing, durationMs: 15_100),
        MediaSummary(id: mediaID(3), ownerId: alice, contentType: "image/jpeg", status: .ready),
        MediaSummary(id: mediaID(4), ownerId: alice, contentType: "video/mp4", status: .ready, durationMs: 20_000),
        MediaSummary(
            id: mediaID(5), ownerId: alice, contentType: "video/quicktime", status: .ready, durationMs: 14_800),
        MediaSummary(id: mediaID(6), ownerId: alice, contentType: "video/mp4", status: .rejected, durationMs: 15_000),
    ]

    static let names = [alice: "Alice", bob: "Bob", carol: "Carol", dave: "Dave", erin: "Erin", frank: "Frank"]

    func withFeed(
        config: [String: String] = [:],
        _ body: @escaping @Sendable (ServiceHarness, any TestClientProtocol, JobRunner, FeedStore) async throws -> Void
    ) async throws {
        try await withFeedRouter(library: Self.library, names: Self.names, config: config, body)
    }

    func create(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, by user: String = alice, against: String = bob,
        deadline: Date? = nil
    ) async throws -> TestResponse {
        try await client.post(
            "/v1/challenges",
            CreateChallengeRequest(
                opponent: against, rules: ChallengeRules(trick: "  kickflip "), deadline: deadline, latitude: 48.85,
                longitude: 2.35), token: try await harness.token(for: user))
    }

    func attach(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, _ id: String, media: Int, as user: String
    ) async throws -> TestResponse {
        try await client.send(
            .put, "/v1/challenges/\(id)/clip", AttachClipRequest(mediaId: Self.mediaID(media)),
            token: try await harness.token(for: user))
    }

    func show(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, _ id: String, as user: String
    ) async throws -> TestResponse {
        try await client.get("/v1/challenges/\(id)", token: try await harness.token(for: user))
    }

    func vote(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, _ id: String, by user: String, for choice: String
    ) async throws -> TestResponse {
        try await client.send(
            .put, "/v1/challenges/\(id)/vote", ChallengeVoteRequest(votedFor: choice),
            token: try await harness.token(for: user))
    }

    /// What the inbox does with media's verdicts.
    func ready(_ store: FeedStore, _ harness: ServiceHarness, media: Int, owner: String) async throws {
        try await store.database.write { db in
            try store.clipReady(
                MediaReady(mediaId: Self.mediaID(media), ownerId: owner), at: harness.clock.now(), in: db)
        }
    }

    @Test func aChallengeMovesThroughTheSeedsStatusesToOneResult() async throws {
        try await withFeed { harness, client, runner, store in
            let created = try await create(harness, client)
            #expect(created.status == .created)
            var challenge = try created.json(Challenge.self)
            let id = challenge.id
            #expect(challenge.status == .created && challenge.participants == [Self.alice, Self.bob])
            #expect(challenge.rules == ChallengeRules(maxDuration: 15, trick: "kickflip"))
            #expect(abs(challenge.deadline.timeIntervalSince(harness.clock.now()) - 72 * 3600) < 0.001)
            #expect(challenge.clips[Self.bob]?.status == .pendingUpload)
            #expect(try harness.outboxEvents(ChallengeCreated.self).map(\.creator.displayName) == ["Alice"])

            // Before voting only the participants see it.
            #expect(try await show(harness, client, id, as: Self.carol).status == .notFound)
            #expect(try await show(harness, client, id, as: Self.bob).status == .ok)

            // The creator records first, with their own video within the rules.
            #expect(try await attach(harness, client, id, media: 2, as: Self.bob).status == .conflict)
            #expect(try await attach(harness, client, id, media: 3, as: Self.alice).status == .badRequest)
            #expect(try await attach(harness, client, id, media: 4, as: Self.alice).status == .badRequest)
            #expect(try await attach(harness, client, id, media: 6, as: Self.alice).status == .conflict)
            #expect(try await attach(harness, client, id, media: 2, as: Self.alice).status == .notFound)
            #expect(try await attach(harness, client, id, media: 1, as: Self.carol).status == .notFound)
            challenge = try await attach(harness, client, id, media: 1, as: Self.alice).json(Challenge.self)
            #expect(challenge.status == .creatorUploading)
            #expect(challenge.clips[Self.alice]?.mediaId == Self.mediaID(1))
            #expect(challenge.clips[Self.alice]?.duration == 15)
            // The same clip again changes nothing.
            #expect(try await attach(harness, client, id, media: 1, as: Self.alice).json(Challenge.self) == challenge)
            let attached = try harness.outboxEvents(MediaAttached.self)
            #expect(attached.count == 1)
            #expect(attached.first?.readers == [Self.bob] && attached.first?.visibility == .private)
            // While processing, the opponent sees that a clip exists, not which.
            #expect(
                try await show(harness, client, id, as: Self.bob).json(Challenge.self).clips[Self.alice]?.mediaId == nil
            )

            try await ready(store, harness, media: 1, owner: Self.alice)
            try await ready(store, harness, media: 1, owner: Self.alice)  // redelivered: nothing more
            challenge = try await show(harness, client, id, as: Self.bob).json(Challenge.self)
            #expect(challenge.status == .creatorReady)
            #expect(challenge.clips[Self.alice]?.mediaId == Self.mediaID(1))
            #expect(try harness.outboxEvents(ChallengeClipReady.self).map(\.toUserId) == [Self.bob])

            // The opponent accepts by recording.
            challenge = try await attach(harness, client, id, media: 2, as: Self.bob).json(Challenge.self)
            #expect(challenge.status == .opponentUploading)
            #expect(try harness.outboxEvents(ChallengeAccepted.self).map(\.creatorId) == [Self.alice])
            try await ready(store, harness, media: 2, owner: Self.bob)
            #expect(try await show(harness, client, id, as: Self.alice).json(Challenge.self).status == .bothReady)
            #expect(try harness.outboxEvents(ChallengeClipReady.self).map(\.toUserId) == [Self.bob, Self.alice])

            // Voting opens at once (the job), and both clips become everyone's to play.
            await runner.runDue()
            challenge = try await show(harness, client, id, as: Self.carol).json(Challenge.self)
            #expect(challenge.status == .voting)
            let votingEnds = try #require(challenge.voting?.deadline)
            #expect(abs(votingEnds.timeIntervalSince(harness.clock.now()) - 24 * 3600) < 0.001)
            #expect(challenge.clips.values.allSatisfy { $0.mediaId != nil && $0.status == .ready })
            #expect(try harness.outboxEvents(MediaAttached.self).filter { $0.visibility == .public }.count == 2)
            #expect(try harness.outboxEvents(ChallengeVotingStarted.self).map(\.challengeId) == [id])

            // Only others vote, once each, changeably; tallies stay hidden.
            #expect(try await vote(harness, client, id, by: Self.alice, for: Self.alice).status == .forbidden)
            #expect(try await vote(harness, client, id, by: Self.carol, for: Self.dave).status == .badRequest)
            #expect(
                try await vote(harness, client, id, by: Self.carol, for: Self.bob).json(Challenge.self).voting?.myVote
                    == Self.bob)
            let changed = try await vote(harness, client, id, by: Self.carol, for: Self.alice).json(Challenge.self)
            #expect(changed.voting?.myVote == Self.alice && changed.voting?.result == nil)
            #expect(try await vote(harness, client, id, by: Self.dave, for: Self.bob).status == .ok)
            #expect(try await vote(harness, client, id, by: Self.frank, for: Self.alice).status == .ok)
            // Someone Bob blocked sees nothing of it and cannot vote.
            try await harness.database().write { db in
                try BlockMirror.apply(UserBlocked(blockerId: Self.bob, blockedId: Self.erin), in: db)
            }
            #expect(try await vote(harness, client, id, by: Self.erin, for: Self.alice).status == .notFound)
            #expect(try await show(harness, client, id, as: Self.erin).status == .notFound)

            // Open for voting near the place: for voters only.
            let near = "/v1/challenges/voting?lat=48.851&lon=2.351&radius_m=1000"
            let forCarol = try await client.get(near, token: try await harness.token(for: Self.carol))
                .json(Page<Challenge>.self).items
            #expect(forCarol.map(\.id) == [id] && (forCarol.first?.distanceM ?? 0) > 0)
            for user in [Self.alice, Self.erin] {
                #expect(
                    try await client.get(near, token: try await harness.token(for: user)).json(Page<Challenge>.self)
                        .items.isEmpty)
            }
            #expect(
                try await client.get(
                    "/v1/challenges/voting?lat=40&lon=2.35&radius_m=1000",
                    token: try await harness.token(for: Self.carol)
                )
                .json(Page<Challenge>.self).items.isEmpty)
            // A place is asked one way: by spot, or by a point (with its radius), never both.
            let spot = "00000000-0000-4000-8000-0000000000ff"
            for bad in [
                "spotId=\(spot)&lat=48.851&lon=2.351", "spotId=\(spot)&radius_m=10", "lat=48.851", "radius_m=10",
            ] {
                #expect(
                    try await client.get(
                        "/v1/challenges/voting?\(bad)", token: try await harness.token(for: Self.carol)
                    )
                    .status == .badRequest, "\(bad)")
            }

            // Moderation hides Bob's clip: only Bob plays it, nobody votes or finds the challenge
            // to vote on, until a moderator restores it.
            let outbox = harness.runtime.makeOutbox()
            try await harness.database().write { db in
                try FeedStore.hide(.challengeClip, Self.mediaID(2), at: harness.clock.now(), outbox: outbox, in: db)
            }
            // Its media is detached: nobody but Bob plays it by id either.
            #expect(
                try harness.outboxEvents(MediaDetached.self) == [
                    MediaDetached(
                        mediaId: Self.mediaID(2), ownerId: Self.bob, referenceType: "challenge", referenceId: id)
                ])
            let held = try await show(harness, client, id, as: Self.carol).json(Challenge.self)
            #expect(held.clips[Self.bob]?.mediaId == nil && held.clips[Self.alice]?.mediaId == Self.mediaID(1))
            #expect(
                try await show(harness, client, id, as: Self.bob).json(Challenge.self).clips[Self.bob]?.mediaId
                    == Self.mediaID(2))
            #expect(try await vote(harness, client, id, by: Self.carol, for: Self.alice).status == .conflict)
            #expect(
                try await client.get(near, token: try await harness.token(for: Self.carol)).json(Page<Challenge>.self)
                    .items.isEmpty)
            #expect(try await store.moderationSubject(.challengeClip, id: Self.mediaID(2), viewer: Self.carol) == nil)
            #expect(
                try await store.moderationSubject(.challengeClip, id: Self.mediaID(2), viewer: Self.bob)?.ownerId
                    == Self.bob)
            try await harness.database().write { db in
                try FeedStore.restore(
                    ContentRestored(targetType: .challengeClip, targetId: Self.mediaID(2)), outbox: outbox, in: db)
            }
            // Voting is open: everyone signed in plays it again.
            #expect(
                try harness.outboxEvents(MediaAttached.self).last
                    == MediaAttached(
                        mediaId: Self.mediaID(2), ownerId: Self.bob, visibility: .public, referenceType: "challenge",
                        referenceId: id))
            #expect(try await vote(harness, client, id, by: Self.carol, for: Self.alice).status == .ok)
            #expect(
                try await client.get(near, token: try await harness.token(for: Self.carol)).json(Page<Challenge>.self)
                    .items.map(\.id) == [id])

            // The deadline passes: voting is closed, the result computed once.
            harness.clock.advance(by: 24 * 3600)
            #expect(try await vote(harness, client, id, by: Self.dave, for: Self.alice).status == .conflict)
            await runner.runDue()
            await runner.runDue()
            challenge = try await show(harness, client, id, as: Self.dave).json(Challenge.self)
            #expect(challenge.status == .completed)
            #expect(challenge.voting?.result == ChallengeResult(winner: Self.alice, creatorVotes: 2, opponentVotes: 1))
            #expect(challenge.voting?.myVote == Self.bob)
            #expect(try harness.outboxEvents(ChallengeCompleted.self).map(\.result.winner) == [Self.alice])
            // Both standings reach auth for the profiles.
            #expect(
                try harness.outboxEvents(ProfileCountsChanged.self).map {
                    [$0.userId, "\($0.challenges?.points ?? -1)"]
                }
                    == [[Self.alice, "3"], [Self.bob, "0"]])
            let token = try await harness.token(for: Self.carol)
            #expect(
                try await client.get("/v1/challenges/stats/\(Self.alice)", token: token).json(ChallengeStats.self)
                    == ChallengeStats(
                        userId: Self.alice, points: 3, wins: 1, losses: 0, draws: 0, streak: 1, bestStreak: 1))
            #expect(
                try await client.get("/v1/challenges/stats/\(Self.bob)", token: token).json(ChallengeStats.self)
                    == ChallengeStats(
                        userId: Self.bob, points: 0, wins: 0, losses: 1, draws: 0, streak: 0, bestStreak: 0))
            #expect(
                try await client.get("/v1/challenges/stats/\(Self.bob)", token: try await harness.token(for: Self.erin))
                    .status == .notFound)

            // Finished: in the participants' past, nothing moves any more.
            let past = try await client.get("/v1/challenges?box=past", token: try await harness.token(for: Self.bob))
                .json(Page<Challenge>.self).items
            #expect(past.map(\.id) == [id])
            #expect(
                try await client.request(
                    .post, "/v1/challenges/\(id)/cancel", token: try await harness.token(for: Self.bob)
                ).status == .conflict)
        }
    }

    @Test func rejectedClipsStepBackAndOpenChallengesCancelOrExpire() async throws {
        try await withFeed { harness, client, runner, store in
            let id = try await create(harness, client).json(Challenge.self).id
            _ = try await attach(harness, client, id, media: 5, as: Self.alice)
            try await store.database.write { db in
                try FeedStore.clipRejected(
                    MediaRejected(
                        mediaId: Self.mediaID(5), ownerId: Self.alice, reason: "a challenge clip lasts 14.5–15.5 s"),
                    at: harness.clock.now(), in: db)
            }
            var challenge = try await show(harness, client, id, as: Self.alice).json(Challenge.self)
            #expect(challenge.status == .created)
            #expect(challenge.clips[Self.alice]?.status == .rejected)
            #expect(challenge.clips[Self.alice]?.rejectionReason?.contains("14.5") == true)
            challenge = try await attach(harness, client, id, media: 1, as: Self.alice).json(Challenge.self)
            #expect(challenge.status == .creatorUploading && challenge.clips[Self.alice]?.status == .processing)

            // Lists by box.
            let token = { (user: String) in try await harness.token(for: user) }
            #expect(
                try await client.get("/v1/challenges?box=outgoing", token: token(Self.alice)).json(Page<Challenge>.self)
                    .items.map(\.id) == [id])
            #expect(
                try await client.get("/v1/challenges?box=incoming", token: token(Self.bob)).json(Page<Challenge>.self)
                    .items.map(\.id) == [id])
            #expect(
                try await client.get("/v1/challenges?box=incoming", token: token(Self.alice)).json(Page<Challenge>.self)
                    .items.isEmpty)
            #expect(try await client.get("/v1/challenges?box=later", token: token(Self.alice)).status == .badRequest)

            // A participant cancels before both clips are ready; twice answers the same.
            let cancel = "/v1/challenges/\(id)/cancel"
            #expect(try await client.request(.post, cancel, token: token(Self.carol)).status == .notFound)
            #expect(
                try await client.request(.post, cancel, token: token(Self.bob)).json(Challenge.self).status
                    == .cancelled)
            #expect(
                try await client.request(.post, cancel, token: token(Self.alice)).json(Challenge.self).status
                    == .cancelled)
            #expect(try await attach(harness, client, id, media: 2, as: Self.bob).status == .conflict)

            // Unanswered by its deadline: expired by the job, once.
            let late = try await create(harness, client, deadline: harness.clock.now().addingTimeInterval(3600))
                .json(Challenge.self).id
            harness.clock.advance(by: 3599)
            await runner.runDue()
            #expect(try await show(harness, client, late, as: Self.bob).json(Challenge.self).status == .created)
            harness.clock.advance(by: 1)
            // Due, the job not yet run: too late to record all the same.
            #expect(try await attach(harness, client, late, media: 1, as: Self.alice).status == .conflict)
            await runner.runDue()
            #expect(try await show(harness, client, late, as: Self.bob).json(Challenge.self).status == .expired)
            #expect(
                try await client.get("/v1/challenges?box=past", token: token(Self.alice)).json(Page<Challenge>.self)
                    .items.count == 2)
        }
    }

    @Test func creationIsValidatedLimitedAndRefusedAcrossBlocks() async throws {
        try await withFeed(config: ["feed.challenges.perHour": "4"]) { harness, client, _, store in
            let alice = try await harness.token(for: Self.alice)
            for (body, status) in [
                (CreateChallengeRequest(opponent: Self.alice), HTTPResponse.Status.badRequest),
                (CreateChallengeRequest(opponent: "00000000-0000-4000-8000-000000000099"), .notFound),
                (CreateChallengeRequest(opponent: Self.bob, rules: ChallengeRules(maxDuration: 16)), .badRequest),
                (
                    CreateChallengeRequest(
                        opponent: Self.bob, rules: ChallengeRules(trick: String(repeating: "x", count: 81))),
                    .badRequest
                ),
                (
                    CreateChallengeRequest(opponent: Self.bob, deadline: harness.clock.now().addingTimeInterval(60)),
                    .badRequest
                ),
                (CreateChallengeRequest(opponent: Self.bob, latitude: 1), .badRequest),
            ] {
                #expect(try await client.post("/v1/challenges", body, token: alice).status == status)
            }
            // A block cancels the two's open challenges (applied as the inbox applies it).
            let open = try await create(harness, client, against: Self.erin).json(Challenge.self).id
            try await store.database.write { db in
                let event = UserBlocked(blockerId: Self.erin, blockedId: Self.alice)
                try BlockMirror.apply(event, in: db)
                try store.blocked(event, at: harness.clock.now(), in: db)
            }
            #expect(try await show(harness, client, open, as: Self.alice).json(Challenge.self).status == .cancelled)
            // Blocks either way: no challenge.
            #expect(try await create(harness, client, against: Self.erin).status == .notFound)
            #expect(try await create(harness, client, by: Self.erin, against: Self.alice).status == .notFound)

            // Four an hour (here): the fifth waits for the first to leave the window.
            for _ in 0..<3 {
                #expect(try await create(harness, client).status == .created)
                harness.clock.advance(by: 600)
            }
            let refused = try await create(harness, client)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.error?.code == .rateLimitExceeded)
            #expect(refused.headers[HTTPField.Name("retry-after")!] == "1800")
            #expect(refused.headers[HTTPField.Name("ratelimit-policy")!] == "\"challenges\";q=4;w=3600")
            #expect(try await create(harness, client, by: Self.bob, against: Self.carol).status == .created)
            harness.clock.advance(by: 1800)
            #expect(try await create(harness, client).status == .created)
        }
    }

    @Test func deletingAUserTakesTheirChallengesVotesAndStanding() async throws {
        try await withFeed { harness, client, runner, store in
            let id = try await create(harness, client).json(Challenge.self).id
            let other = try await create(harness, client, by: Self.bob, against: Self.carol).json(Challenge.self).id
            try await store.database.write { db in
                try ChallengeVoteRecord(challengeId: other, voterId: Self.alice, votedFor: Self.bob, updatedAt: Date())
                    .insert(db)
                try ChallengeStatsRecord(
                    userId: Self.alice, points: 3, wins: 1, streak: 1, bestStreak: 1, updatedAt: Date()
                )
                .insert(db)
                try FeedStore.erase(userID: Self.alice, jobs: store.jobs, outbox: store.outbox, in: db)
            }
            #expect(try await show(harness, client, id, as: Self.bob).status == .notFound)
            #expect(try await show(harness, client, other, as: Self.bob).status == .ok)
            let left = try await store.database.read { db in
                try (
                    ChallengeVoteRecord.fetchCount(db), ChallengeStatsRecord.fetchCount(db),
                    Int.fetchOne(db, sql: "SELECT COUNT(*) FROM kit_job WHERE key = ?", arguments: [id])
                )
            }
            #expect(left.0 == 0 && left.1 == 0 && left.2 == 0)
            await runner.runDue()
        }
    }
}
