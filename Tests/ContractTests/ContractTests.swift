import AsyncHTTPClient
import Foundation
import GRDB
import NIOCore
import NIOHTTP1
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import AlertsService
@testable import AuthService
@testable import FeedService
@testable import MediaService
@testable import ModerationService
@testable import StreakService

/// Recorded interactions between services, replayed against the provider's real application
/// (over mutual-TLS HTTP/2, as the consumer's certificate) and decoded by the consumer's own
/// client code. If either side drifts from the recording, a test here fails.
@Suite struct ContractTests {
    struct LookupContract: Decodable {
        struct Interaction: Decodable {
            struct Request: Decodable {
                var method: String
                var path: String
            }
            struct Expected: Decodable {
                var status: Int
                var body: JSONValue?
            }
            var description: String
            var state: String
            var request: Request
            var response: Expected
        }
        var provider: ServiceName
        var path: String
        var consumers: [ServiceName]
        var interactions: [Interaction]
    }

    struct EventContract: Decodable {
        var producer: ServiceName
        var consumers: [ServiceName]
        var envelope: JSONValue
    }

    static func load<T: Decodable>(_ file: String, as type: T.Type) throws -> T {
        let url = try #require(Bundle.module.url(forResource: "Interactions/\(file)", withExtension: "json"))
        return try JSONDecoder().decode(type, from: Data(contentsOf: url))
    }

    static let lookupFiles = [
        "media-lookup", "user-lookup", "user-by-username-lookup", "user-search", "session-lookup",
        "streak-stats-lookup", "follow-lookup", "feed-subject-lookup", "auth-subject-lookup", "streak-subject-lookup",
        "alerts-subject-lookup",
    ]

    // MARK: - Service-to-service calls

    /// What each provider must hold for a recorded state, written straight into its database.
    static let states: [String: @Sendable (Database) throws -> Void] = [
        "media 5a1e0c3d-0000-4000-8000-000000000001 is a ready JPEG of user 0a1ce000-0000-4000-8000-000000000001": {
            db in
            try db.execute(
                sql: """
                    INSERT INTO media (id, owner_id, content_type, byte_size, sha256, status, visibility, created_at)
                    VALUES ('5a1e0c3d-0000-4000-8000-000000000001', '0a1ce000-0000-4000-8000-000000000001', 'image/jpeg',
                            10, '\(String(repeating: "ab", count: 32))', 'ready', 'private', '2026-11-22 10:00:00.000')
                    """)
        },
        "media 5a1e0c3d-0000-4000-8000-000000000002 is a 15 s MP4 of user 0a1ce000-0000-4000-8000-000000000001, processing":
            { db in
                try db.execute(
                    sql: """
                        INSERT INTO media (id, owner_id, content_type, byte_size, sha256, status, visibility, created_at,
                                           duration_ms)
                        VALUES ('5a1e0c3d-0000-4000-8000-000000000002', '0a1ce000-0000-4000-8000-000000000001', 'video/mp4',
                                10, '\(String(repeating: "cd", count: 32))', 'processing', 'private',
                                '2026-11-22 10:00:00.000', 15000)
                        """)
            },
        "user 0a1ce000-0000-4000-8000-000000000001 is Alice": { db in
            try db.execute(
                sql: """
                    INSERT INTO user (id, email, password_hash, display_name, created_at, updated_at)
                    VALUES ('0a1ce000-0000-4000-8000-000000000001', 'alice@example.com', 'x', 'Alice',
                            '2026-11-22 10:00:00.000', '2026-11-22 10:00:00.000')
                    """)
        },
        "user 0a1ce000-0000-4000-8000-000000000001 is Alice, @alice_l": { db in
            try states["user 0a1ce000-0000-4000-8000-000000000001 is Alice"]!(db)
            try db.execute(
                sql: """
                    UPDATE user SET username = 'alice_l', username_key = 'alice_l'
                    WHERE id = '0a1ce000-0000-4000-8000-000000000001'
                    """)
        },
        "post 9057a000-0000-4000-8000-000000000001 by user 0a1ce000-0000-4000-8000-000000000001 is listed": { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO post (id, author_id, media_id, latitude, longitude, created_at, created_ms)
                    VALUES ('9057a000-0000-4000-8000-000000000001', '0a1ce000-0000-4000-8000-000000000001',
                            '5a1e0c3d-0000-4000-8000-000000000001', 1, 1, '2026-11-22 10:00:00.000', 1795341600000)
                    """)
        },
        "post 9057a000-0000-4000-8000-000000000001 by user 0a1ce000-0000-4000-8000-000000000001 waits for its media": {
            db in
            try db.execute(
                sql: """
                    INSERT INTO post (id, author_id, media_id, latitude, longitude, created_at, created_ms, media_state)
                    VALUES ('9057a000-0000-4000-8000-000000000001', '0a1ce000-0000-4000-8000-000000000001',
                            '5a1e0c3d-0000-4000-8000-000000000001', 1, 1, '2026-11-22 10:00:00.000', 1795341600000,
                            'processing')
                    ON CONFLICT (id) DO UPDATE SET media_state = 'processing'
                    """)
        },
        "post 9057a000-0000-4000-8000-000000000001 by user 0a1ce000-0000-4000-8000-000000000001 is hidden": { db in
            try states[
                "post 9057a000-0000-4000-8000-000000000001 by user 0a1ce000-0000-4000-8000-000000000001 is listed"]!(
                    db)
            try db.execute(
                sql:
                    "UPDATE post SET hidden_at = '2026-11-22 11:00:00.000' WHERE id = '9057a000-0000-4000-8000-000000000001'"
            )
        },
        "user 5a000000-0000-4000-8000-000000000001 sent snap 54a90000-0000-4000-8000-000000000093 into their streak": {
            db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO streak (id, user_a, user_b, count, longest_count, status, created_at)
                    VALUES ('57ea0000-0000-4000-8000-000000000093', '5a000000-0000-4000-8000-000000000001',
                            '5a000000-0000-4000-8000-000000000002', 2, 2, 'active', '2026-11-01 10:00:00.000');
                    INSERT OR IGNORE INTO snap (id, user_id, media_id, local_date, time_zone, prompt, created_at)
                    VALUES ('54a90000-0000-4000-8000-000000000093', '5a000000-0000-4000-8000-000000000001',
                            '5a1e0c3d-0000-4000-8000-000000000093', '2026-11-03', 'UTC', 'Something blue',
                            '2026-11-03 10:00:00.000');
                    INSERT OR IGNORE INTO streak_snap (streak_id, user_id, local_date, snap_id, created_at)
                    VALUES ('57ea0000-0000-4000-8000-000000000093', '5a000000-0000-4000-8000-000000000001',
                            '2026-11-03', '54a90000-0000-4000-8000-000000000093', '2026-11-03 10:00:00.000');
                    """)
        },
        "moderation hid snap 54a90000-0000-4000-8000-000000000093 of user 5a000000-0000-4000-8000-000000000001": {
            db in
            try states[
                "user 5a000000-0000-4000-8000-000000000001 sent snap 54a90000-0000-4000-8000-000000000093 into their streak"
            ]!(db)
            try db.execute(
                sql: """
                    UPDATE snap SET hidden_at = '2026-11-04 10:00:00.000'
                    WHERE id = '54a90000-0000-4000-8000-000000000093'
                    """)
        },
        """
        user 0a1ce000-0000-4000-8000-000000000001 sent message 3e550000-0000-4000-8000-000000000001 to user \
        0b0b0000-0000-4000-8000-000000000001
        """: { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO conversation (id, first_user_id, second_user_id, started_by, created_at)
                    VALUES ('c0c00000-0000-4000-8000-000000000001', '0a1ce000-0000-4000-8000-000000000001',
                            '0b0b0000-0000-4000-8000-000000000001', '0a1ce000-0000-4000-8000-000000000001',
                            '2026-11-22 10:00:00.000');
                    INSERT OR IGNORE INTO message (id, conversation_id, sender_id, text, created_at)
                    VALUES ('3e550000-0000-4000-8000-000000000001', 'c0c00000-0000-4000-8000-000000000001',
                            '0a1ce000-0000-4000-8000-000000000001', 'buy followers at example.com',
                            '2026-11-22 10:00:00.000');
                    """)
        },
        "session 5e550000-0000-4000-8000-000000000001 of Alice is live and limited; Alice moderates": { db in
            try states["user 0a1ce000-0000-4000-8000-000000000001 is Alice"]!(db)
            try db.execute(
                sql: """
                    INSERT INTO session (id, user_id, created_at, last_used_at, limited)
                    VALUES ('5e550000-0000-4000-8000-000000000001', '0a1ce000-0000-4000-8000-000000000001',
                            '2026-11-22 10:00:00.000', '2026-11-22 10:00:00.000', 1);
                    INSERT INTO user_role (user_id, role) VALUES ('0a1ce000-0000-4000-8000-000000000001', 'moderator');
                    """)
        },
        "session 5e550000-0000-4000-8000-000000000003 of Tara, customer TARA-1 of tenant Acme, is live": { db in
            try db.execute(
                sql: """
                    INSERT INTO user (id, email, password_hash, display_name, created_at, updated_at)
                    VALUES ('7a7a0000-0000-4000-8000-000000000001', 'tara@example.com', 'x', 'Tara',
                            '2026-11-22 10:00:00.000', '2026-11-22 10:00:00.000');
                    INSERT INTO tenant (id, name, api_key_hash, status, created_at, updated_at)
                    VALUES ('7e7a0000-0000-4000-8000-000000000001', 'Acme', 'hash', 'active',
                            '2026-11-22 10:00:00.000', '2026-11-22 10:00:00.000');
                    INSERT INTO customer (user_id, tenant_id, customer_ref, pin_hash, duress_pin_hash, created_at,
                                          pins_updated_at)
                    VALUES ('7a7a0000-0000-4000-8000-000000000001', '7e7a0000-0000-4000-8000-000000000001', 'TARA-1',
                            'x', 'y', '2026-11-22 10:00:00.000', '2026-11-22 10:00:00.000');
                    INSERT INTO session (id, user_id, created_at, last_used_at, tenant_id)
                    VALUES ('5e550000-0000-4000-8000-000000000003', '7a7a0000-0000-4000-8000-000000000001',
                            '2026-11-22 10:00:00.000', '2026-11-22 10:00:00.000', '7e7a0000-0000-4000-8000-000000000001');
                    """)
        },
        "session 5e550000-0000-4000-8000-000000000004 of Ada is live and attested": { db in
            try db.execute(
                sql: """
                    INSERT INTO user (id, email, password_hash, display_name, created_at, updated_at)
                    VALUES ('0ada0000-0000-4000-8000-000000000001', 'ada@example.com', 'x', 'Ada',
                            '2026-11-22 10:00:00.000', '2026-11-22 10:00:00.000');
                    INSERT INTO session (id, user_id, created_at, last_used_at, attested_at)
                    VALUES ('5e550000-0000-4000-8000-000000000004', '0ada0000-0000-4000-8000-000000000001',
                            '2026-11-22 10:00:00.000', '2026-11-22 10:00:00.000', '2026-11-22 10:05:00.000')
                    """)
        },
        "session 5e550000-0000-4000-8000-000000000002 of Alice was revoked": { db in
            try db.execute(
                sql: """
                    INSERT INTO session (id, user_id, created_at, last_used_at, revoked_at)
                    VALUES ('5e550000-0000-4000-8000-000000000002', '0a1ce000-0000-4000-8000-000000000001',
                            '2026-11-22 10:00:00.000', '2026-11-22 10:00:00.000', '2026-11-22 10:01:00.000')
                    """)
        },
        "users Alice Liddell, Álvaro Alison and Bob Smith; Bob is @ali_b": { db in
            try states["users Alice Liddell, Álvaro Alison and Bob Smith"]?(db)
            try db.execute(
                sql: "UPDATE user SET username = 'ali_b', username_key = 'ali_b' WHERE id = ?",
                arguments: ["0a1ce000-0000-4000-8000-000000000003"])
        },
        "users Alice Liddell, Álvaro Alison and Bob Smith": { db in
            // As registration leaves them: the account and the words of its name.
            for (number, name, email, words) in [
                (1, "Alice Liddell", "alice@example.com", ["alice", "liddell"]),
                (2, "Álvaro Alison", "alvaro@example.com", ["alvaro", "alison"]),
                (3, "Bob Smith", "bob@example.com", ["bob", "smith"]),
            ] {
                let id = "0a1ce000-0000-4000-8000-00000000000\(number)"
                try db.execute(
                    sql: """
                        INSERT OR IGNORE INTO user (id, email, password_hash, display_name, created_at, updated_at)
                        VALUES (?, ?, 'x', ?, '2026-11-22 10:00:00.000', '2026-11-22 10:00:00.000')
                        """, arguments: [id, email, name])
                // As auth indexes a registration: a lasting key, then the FTS5 row.
                guard
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user_search WHERE user_id = ?", arguments: [id])
                        == 0
                else { continue }
                try db.execute(sql: "INSERT INTO user_search (user_id) VALUES (?)", arguments: [id])
                try db.execute(
                    sql: "INSERT INTO user_fts (rowid, username, name) VALUES (last_insert_rowid(), '', ?)",
                    arguments: [words.joined(separator: " ")])
            }
        },
        "user 5a000000-0000-4000-8000-000000000001 had a 12-day streak, ended, and sent 2 snaps": { db in
            try db.execute(
                sql: """
                    INSERT INTO streak (id, user_a, user_b, count, longest_count, status, broken_reason, created_at)
                    VALUES ('57ea0000-0000-4000-8000-000000000009', '5a000000-0000-4000-8000-000000000001',
                            '5a000000-0000-4000-8000-000000000002', 0, 12, 'broken', 'unfriended',
                            '2026-11-01 10:00:00.000');
                    INSERT INTO snap (id, user_id, media_id, local_date, time_zone, created_at)
                    VALUES ('54a90000-0000-4000-8000-000000000091', '5a000000-0000-4000-8000-000000000001',
                            '5a1e0c3d-0000-4000-8000-000000000091', '2026-11-01', 'UTC', '2026-11-01 10:00:00.000'),
                           ('54a90000-0000-4000-8000-000000000092', '5a000000-0000-4000-8000-000000000001',
                            '5a1e0c3d-0000-4000-8000-000000000092', '2026-11-02', 'UTC', '2026-11-02 10:00:00.000');
                    """)
        },
        "user 0b0b0000-0000-4000-8000-000000000001 follows user 0a1ce000-0000-4000-8000-000000000001": { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO follow (follower_id, followee_id, created_at)
                    VALUES ('0b0b0000-0000-4000-8000-000000000001', '0a1ce000-0000-4000-8000-000000000001',
                            '2026-11-22 10:00:00.000')
                    """)
        },
        "no media": { _ in }, "no users": { _ in }, "no posts": { _ in }, "no sessions": { _ in },
        "no streaks": { _ in },
    ]

    @Test(arguments: lookupFiles) func theProviderAnswersAsRecorded(file: String) async throws {
        let contract = try Self.load(file, as: LookupContract.self)
        try await withRunningService(contract.provider) { service in
            for interaction in contract.interactions {
                let prepare = try #require(Self.states[interaction.state], "unknown state: \(interaction.state)")
                try await service.database().write(prepare)
                for consumer in contract.consumers {
                    let response = try await service.call(
                        interaction.request.method, interaction.request.path, as: consumer)
                    #expect(response.status == interaction.response.status, "\(interaction.description) as \(consumer)")
                    if let expected = interaction.response.body {
                        // An error's request id differs on every call: the recording has none.
                        #expect(
                            try JSONValue(data: response.body).withoutRequestID == expected,
                            "\(interaction.description): \(String(decoding: response.body, as: UTF8.self))")
                    }
                }
                // Nobody else may ask.
                let stranger = try await service.call(
                    interaction.request.method, interaction.request.path, as: .gateway)
                #expect(stranger.status == 403)
            }
        }
    }

    @Test(arguments: lookupFiles) func theConsumerReadsTheRecordedAnswers(file: String) throws {
        let contract = try Self.load(file, as: LookupContract.self)
        for interaction in contract.interactions {
            let body = try interaction.response.body.map { try $0.data() } ?? Data()
            let response = InternalResponse(
                status: HTTPResponseStatus(statusCode: interaction.response.status), headers: [:],
                body: ByteBuffer(bytes: body))
            switch contract.path {
            case "/internal/media/{id}": try Self.expectDecoded(MediaSummary.self, response, interaction, from: .media)
            case "/internal/users/{id}", "/internal/users/by-username/{username}":
                try Self.expectDecoded(UserSummary.self, response, interaction, from: .auth)
            case "/internal/users":
                // Streak's reading: the users of a 200, the client's own error relayed for a 400.
                if interaction.response.status == 200 {
                    let users = try StreakDependencies.interpretSearch(response)
                    #expect(
                        try JSONValue(data: JSONCoding.encoder().encode(UserSearch(users: users)))
                            == interaction.response.body)
                } else {
                    let error = #expect(throws: ServiceError.self) { try StreakDependencies.interpretSearch(response) }
                    #expect(error?.code == .validationFailed, "\(interaction.description)")
                }
            case ModerationSubjectsController.path + "/{type}/{id}":
                try Self.expectDecoded(ModerationSubject.self, response, interaction, from: contract.provider)
            case "/internal/streak-stats/{id}":
                try Self.expectDecoded(StreakProfileStats.self, response, interaction, from: .streak)
            case "/internal/follows/{followerId}/{followeeId}":
                try Self.expectDecoded(FollowEdge.self, response, interaction, from: .feed)
            case "/internal/sessions/{id}":
                try Self.expectDecoded(SessionState.self, response, interaction, from: .auth)
            default:
                Issue.record("no consumer client for \(contract.path)")
            }
        }
        // Anything but 200 and 404 is the provider failing, never a silent "not found".
        let broken = InternalResponse(status: .internalServerError, headers: [:], body: ByteBuffer())
        #expect(throws: ServiceError.self) { try Lookup<MediaSummary>.interpret(broken, from: .media) }
    }

    // MARK: - Events

    @Test func everyEventInTheCatalogIsRecordedWithItsProducerAndConsumers() throws {
        let events = try Self.load("events", as: [EventContract].self)
        var recorded: [EventType: [EventContract]] = [:]
        for event in events {
            recorded[try EventType(rawValue: event.envelope.string("type")), default: []].append(event)
        }
        #expect(Set(recorded.keys) == Set(EventCatalog.subscribers.keys))
        for (type, events) in recorded {
            // One recording per producer the catalog allows.
            #expect(EventCatalog.producers[type] == Set(events.map(\.producer)), "\(type)")
            #expect(events.count == Set(events.map(\.producer)).count, "\(type)")
            for event in events {
                #expect(EventCatalog.subscribers(of: type) == event.consumers, "\(type)")
                // The producer's contract type encodes exactly the recorded payload.
                let payload = try event.envelope.member("payload").data()
                let encoded = try Self.reencode(type, payload)
                #expect(try JSONValue(data: encoded) == event.envelope.member("payload"), "\(type)")
            }
        }
    }

    /// The consumer's `Lookup` reads the recorded answer back into exactly the recorded body.
    static func expectDecoded<Value: Codable & Sendable>(
        _: Value.Type, _ response: InternalResponse, _ interaction: LookupContract.Interaction,
        from provider: ServiceName
    ) throws {
        let value = try Lookup<Value>.interpret(response, from: provider)
        #expect((value == nil) == (interaction.response.status == 404), "\(interaction.description)")
        if let value {
            #expect(try JSONValue(data: JSONCoding.encoder().encode(value)) == interaction.response.body)
        }
    }

    static func reencode(_ type: EventType, _ payload: Data) throws -> Data {
        func roundTrip<Event: DomainEvent>(_: Event.Type) throws -> Data {
            try JSONCoding.encoder().encode(JSONCoding.decoder().decode(Event.self, from: payload))
        }
        switch type {
        case MediaAttached.eventType: return try roundTrip(MediaAttached.self)
        case MediaSharingEnded.eventType: return try roundTrip(MediaSharingEnded.self)
        case MediaWithdrawn.eventType: return try roundTrip(MediaWithdrawn.self)
        case FriendRequestSent.eventType: return try roundTrip(FriendRequestSent.self)
        case FriendRequestAccepted.eventType: return try roundTrip(FriendRequestAccepted.self)
        case StreakAtRisk.eventType: return try roundTrip(StreakAtRisk.self)
        case StreakBroken.eventType: return try roundTrip(StreakBroken.self)
        case StreakSnapped.eventType: return try roundTrip(StreakSnapped.self)
        case StreakNudged.eventType: return try roundTrip(StreakNudged.self)
        case StreakWindowOpened.eventType: return try roundTrip(StreakWindowOpened.self)
        case StreakWindowClosing.eventType: return try roundTrip(StreakWindowClosing.self)
        case StreakMilestoneReached.eventType: return try roundTrip(StreakMilestoneReached.self)
        case ContentHidden.eventType: return try roundTrip(ContentHidden.self)
        case ContentRestored.eventType: return try roundTrip(ContentRestored.self)
        case ContentRemoved.eventType: return try roundTrip(ContentRemoved.self)
        case UserWarned.eventType: return try roundTrip(UserWarned.self)
        case UserSuspended.eventType: return try roundTrip(UserSuspended.self)
        case UserBanned.eventType: return try roundTrip(UserBanned.self)
        case UserReinstated.eventType: return try roundTrip(UserReinstated.self)
        case AppealDecided.eventType: return try roundTrip(AppealDecided.self)
        case MediaHeld.eventType: return try roundTrip(MediaHeld.self)
        case UserBlocked.eventType: return try roundTrip(UserBlocked.self)
        case UserUnblocked.eventType: return try roundTrip(UserUnblocked.self)
        case UserMuted.eventType: return try roundTrip(UserMuted.self)
        case UserUnmuted.eventType: return try roundTrip(UserUnmuted.self)
        case DuressRaised.eventType: return try roundTrip(DuressRaised.self)
        case DuressCleared.eventType: return try roundTrip(DuressCleared.self)
        case UserDeleted.eventType: return try roundTrip(UserDeleted.self)
        case RecoveryTokensPurchased.eventType: return try roundTrip(RecoveryTokensPurchased.self)
        case MediaReady.eventType: return try roundTrip(MediaReady.self)
        case MediaRejected.eventType: return try roundTrip(MediaRejected.self)
        case SessionEnded.eventType: return try roundTrip(SessionEnded.self)
        case ChallengeCreated.eventType: return try roundTrip(ChallengeCreated.self)
        case ChallengeAccepted.eventType: return try roundTrip(ChallengeAccepted.self)
        case ChallengeClipReady.eventType: return try roundTrip(ChallengeClipReady.self)
        case ChallengeVotingStarted.eventType: return try roundTrip(ChallengeVotingStarted.self)
        case ChallengeCompleted.eventType: return try roundTrip(ChallengeCompleted.self)
        case SpotUnlocked.eventType: return try roundTrip(SpotUnlocked.self)
        case SpotNearby.eventType: return try roundTrip(SpotNearby.self)
        case UserFollowed.eventType: return try roundTrip(UserFollowed.self)
        case ProfileCountsChanged.eventType: return try roundTrip(ProfileCountsChanged.self)
        case PostLiked.eventType: return try roundTrip(PostLiked.self)
        case PostMentioned.eventType: return try roundTrip(PostMentioned.self)
        case KeywordMutesChanged.eventType: return try roundTrip(KeywordMutesChanged.self)
        case PostReplied.eventType: return try roundTrip(PostReplied.self)
        case PostReposted.eventType: return try roundTrip(PostReposted.self)
        case MediaDetached.eventType: return try roundTrip(MediaDetached.self)
        case ProfileChanged.eventType: return try roundTrip(ProfileChanged.self)
        case MediaDescribed.eventType: return try roundTrip(MediaDescribed.self)
        default: throw StackError("no contract type for \(type)")
        }
    }

    /// The challenge the recorded challenge events are about.
    static let challenge = "c4a11e00-0000-4000-8000-000000000001"

    /// Whether alerts holds one notification of `type` for `user` with `link`.
    static func challengeNotification(_ type: String, to user: String, link: String, in db: Database) throws -> Bool {
        try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM notification WHERE type = ? AND user_id = ? AND link = ?",
            arguments: [type, user, link]) == 1
    }

    /// What a consumer holds before an event and must hold after it.
    struct Effect: Sendable {
        var given: @Sendable (Database) throws -> Void = { _ in }
        var then: @Sendable (Database) throws -> Bool
    }

    /// A streak of Alice's with three days kept through today (UTC), broken by a moderator's
    /// `reason`; `events` is how many `streak.broken` the outbox then holds.
    static func streakForfeited(_ id: String, _ reason: String, events: Int) -> Effect {
        Effect(
            given: { db in
                try db.execute(
                    sql: """
                        INSERT INTO streak (id, user_a, user_b, status, count, longest_count, last_completed_date, created_at)
                        VALUES (?, ?, ?, 'active', 3, 3, date('now'), '2026-11-22 10:00:00.000')
                        """, arguments: [id, alice, "0f\(id.dropFirst(2))"])
            },
            then: { db in
                try String.fetchOne(
                    db, sql: "SELECT status || ' ' || broken_reason FROM streak WHERE id = ?", arguments: [id])
                    == "broken \(reason)"
                    && Int.fetchOne(db, sql: "SELECT COUNT(*) FROM kit_outbox_event WHERE type = 'streak.broken'")
                        == events
            })
    }

    /// The action of the recorded moderation events.
    static let moderationAction = "ac700000-0000-4000-8000-000000000001"

    /// A message from Alice to Bob, hidden from Bob by moderation or not.
    static func messageToBob(_ id: String, hidden: Bool, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO conversation (id, first_user_id, second_user_id, started_by, created_at)
                VALUES ('c0c00000-0000-4000-8000-0000000000b0', ?1, ?2, ?1, '2026-11-22 10:00:00.000')
                """, arguments: [alice, bob])
        try db.execute(
            sql: """
                INSERT INTO message (id, conversation_id, sender_id, text, created_at)
                VALUES (?, 'c0c00000-0000-4000-8000-0000000000b0', ?, 'hello', '2026-11-22 10:00:00.000')
                """, arguments: [id, alice])
        if hidden {
            try db.execute(
                sql: "INSERT INTO hidden_message (message_id, user_id, reason) VALUES (?, ?, 'moderated')",
                arguments: [id, bob])
        }
    }

    /// A photo of Alice's that screening held.
    static func heldMedia(_ id: String, in db: Database) throws {
        try privateMedia(id, in: db)
        try db.execute(sql: "UPDATE media SET status = 'held', screening_score = 1 WHERE id = ?", arguments: [id])
    }

    /// A post of Alice's without media, for moderation's events.
    static func moderatedPost(_ id: String, hidden: Bool, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO post (id, author_id, caption, created_at, created_ms, hidden_at)
                VALUES (?, ?, 'a post', '2026-11-22 10:00:00.000', 1795341600000, ?)
                """, arguments: [id, alice, hidden ? "2026-11-22 11:00:00.000" : nil])
    }

    /// A snap of Alice's with the id the recorded events name (a post's), hidden or not.
    static func snapNamed(_ id: String, hidden: Bool, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO snap (id, user_id, media_id, local_date, time_zone, created_at, hidden_at)
                VALUES (?, ?, '5a1e0c3d-0000-4000-8000-0000000000aa', '2026-11-22', 'UTC', '2026-11-22 10:00:00.000', ?)
                """, arguments: [id, alice, hidden ? "2026-11-22 11:00:00.000" : nil])
    }

    /// Whether the snap `id` is hidden, as `expected`.
    static func snapHidden(_ id: String, _ expected: Bool, in db: Database) throws -> Bool {
        try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM snap WHERE id = ? AND (hidden_at IS NOT NULL) = ?",
            arguments: [id, expected]) == 1
    }

    /// Alice's notification of `type` about the recorded action, with this title and body.
    static func moderationNotice(_ type: String, title: String, body: String) -> Effect {
        Effect(then: { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM notification WHERE type = ? AND user_id = ? AND title = ? AND body = ?
                    AND link = '/moderation/actions/' || ?
                    """, arguments: [type, alice, title, body, moderationAction]) == 1
        })
    }

    /// Alice sent a snap of media 5a1e0c3d-…-0001 (still processing) into her streak with Bob.
    static func snapWaitsForMedia(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO streak (id, user_a, user_b, status, created_at)
                VALUES ('57ea0000-0000-4000-8000-000000000002', ?, ?, 'active', '2026-11-22 10:00:00.000');
                INSERT OR REPLACE INTO snap (id, user_id, media_id, local_date, time_zone, created_at)
                VALUES ('54a90000-0000-4000-8000-000000000001', ?, '5a1e0c3d-0000-4000-8000-000000000001', '2026-11-22',
                        'UTC', '2026-11-22 10:00:00.000');
                INSERT OR REPLACE INTO streak_snap (streak_id, user_id, local_date, snap_id, ready, created_at)
                VALUES ('57ea0000-0000-4000-8000-000000000002', ?, '2026-11-22', '54a90000-0000-4000-8000-000000000001',
                        0, '2026-11-22 10:00:00.000');
                """, arguments: [alice, bob, alice, alice])
    }

    /// A ready private JPEG of Alice's in media's store, with the reference of the service it
    /// was made for (`service`, `type`) and a reader, when given.
    static func privateMedia(
        _ id: String, madeFor reference: (service: String, type: String)? = nil, readBy reader: String? = nil,
        in db: Database
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO media (id, owner_id, content_type, byte_size, sha256, status, visibility, created_at)
                VALUES (?, ?, 'image/jpeg', 10, '\(String(repeating: "cd", count: 32))', 'ready', 'private',
                        '2026-11-22 10:00:00.000')
                """, arguments: [id, alice])
        if let reference {
            try db.execute(
                sql:
                    "INSERT INTO media_reference (media_id, service, reference_type, reference_id) VALUES (?, ?, ?, ?)",
                arguments: [id, reference.service, reference.type, id])
        }
        if let reader {
            try db.execute(sql: "INSERT INTO media_reader (media_id, user_id) VALUES (?, ?)", arguments: [id, reader])
        }
    }

    static let alice = "0a1ce000-0000-4000-8000-000000000001"

    /// The consumer's copy says Bob mutes Alice (or no longer does).
    static func bobMutesAlice(_ muted: Bool) -> Effect {
        Effect(then: { db in try MuteMirror.isMuted(alice, by: bob, in: db) == muted })
    }
    static let bob = "0b0b0000-0000-4000-8000-000000000001"

    /// The consumer's copy of Bob's keyword mutes is the recorded revision 3.
    static let bobsMutedWords = Effect(then: { db in
        try Int.fetchOne(
            db,
            sql: """
                SELECT COUNT(*) FROM muted_words WHERE user_id = ? AND revision = 3
                AND json_extract(mutes, '$[0].phrase') = 'Spoiler' AND json_extract(mutes, '$[0].until') IS NULL
                AND json_extract(mutes, '$[1].phrase') = 'the finale' AND json_extract(mutes, '$[1].until') IS NOT NULL
                """, arguments: [bob]) == 1
    })

    /// Whether Alice has one notification of `type` from Bob about post 1, opening `link`.
    static func postNotification(_ type: String, link: String, in db: Database) throws -> Bool {
        try Int.fetchOne(
            db,
            sql: """
                SELECT COUNT(*) FROM notification WHERE type = ? AND user_id = ? AND actor_id = ? AND link = ?
                AND instr(data, '9057a000-0000-4000-8000-000000000001') > 0
                """, arguments: [type, alice, bob, link]) == 1
    }

    /// Every consumer of `profile.changed` keeps the person in its copy, newest revision.
    static let profileKept = Effect(then: { db in
        try Row.fetchOne(
            db,
            sql: "SELECT username, display_name, avatar_media_id, deleted, revision FROM kit_profile WHERE user_id = ?",
            arguments: [alice])
            == [
                "username": "alice", "display_name": "Alice", "avatar_media_id": "5a1e0c3d-0000-4000-8000-0000000000b1",
                "deleted": false, "revision": 3,
            ]
    })

    /// Every consumer of `media.described` keeps the media in its copy, newest revision.
    static let mediaKept = Effect(then: { db in
        try Row.fetchOne(
            db,
            sql: """
                SELECT owner_id, kind, status, width, height, placeholder, variants, revision FROM kit_media
                WHERE media_id = '5a1e0c3d-0000-4000-8000-0000000000b1'
                """)
            == [
                "owner_id": alice, "kind": "photo", "status": "ready", "width": 1200, "height": 900,
                "placeholder": "LEHV6nWB2yk8pyo0adR*.7kCMdnj", "variants": "thumbnail,display", "revision": 2,
            ]
    })

    static let effects: [String: Effect] = [
        "profile.changed → feed": profileKept, "profile.changed → streak": profileKept,
        "profile.changed → alerts": profileKept, "profile.changed → moderation": profileKept,
        "media.described → auth": mediaKept, "media.described → feed": mediaKept,
        "media.described → streak": mediaKept, "media.described → alerts": mediaKept,
        "media.described → moderation": mediaKept,
        "media.attached → media": Effect(
            given: states["media 5a1e0c3d-0000-4000-8000-000000000001 is a ready JPEG of user \(alice)"]!,
            then: { db in
                // Public now, the reference remembered, and (being ready already) answered.
                try String.fetchOne(db, sql: "SELECT visibility FROM media") == "public"
                    && String.fetchOne(db, sql: "SELECT service || ' ' || reference_type FROM media_reference")
                        == "feed post"
                    && String.fetchOne(db, sql: "SELECT type FROM kit_outbox_event") == "media.ready"
            }),
        // A snap's media: private, read by the partner it was revealed to.
        "media.attached from streak → media": Effect(
            given: { db in try privateMedia("5a1e0c3d-0000-4000-8000-000000000002", in: db) },
            then: { db in
                try String.fetchOne(
                    db, sql: "SELECT visibility FROM media WHERE id = '5a1e0c3d-0000-4000-8000-000000000002'")
                    == "private"
                    && String.fetchAll(db, sql: "SELECT media_id || ' ' || user_id FROM media_reader")
                        == ["5a1e0c3d-0000-4000-8000-000000000002 \(bob)"]
                    && Int.fetchOne(
                        db,
                        sql: "SELECT COUNT(*) FROM media_reference WHERE service = 'streak' AND reference_type = 'snap'"
                    )
                        == 1
            }),
        // Their streak ended: Bob stops reading Alice's snap; what feed shared stays.
        "media.sharing_ended → media": Effect(
            given: { db in
                try privateMedia(
                    "5a1e0c3d-0000-4000-8000-000000000004", madeFor: ("streak", "snap"), readBy: bob, in: db)
                try privateMedia("5a1e0c3d-0000-4000-8000-000000000005", madeFor: ("feed", "snap"), readBy: bob, in: db)
            },
            then: { db in
                try String.fetchAll(db, sql: "SELECT media_id || ' ' || user_id FROM media_reader")
                    == ["5a1e0c3d-0000-4000-8000-000000000005 \(bob)"]
            }),
        // A card streak had made for Alice goes; her own upload, also listed, stays.
        "media.withdrawn → media": Effect(
            given: { db in
                try privateMedia("5a1e0c3d-0000-4000-8000-000000000006", madeFor: ("streak", "share_card"), in: db)
                try privateMedia("5a1e0c3d-0000-4000-8000-000000000007", in: db)
            },
            then: { db in
                try String.fetchAll(
                    db, sql: "SELECT id FROM media WHERE id IN (?, ?)",
                    arguments: [
                        "5a1e0c3d-0000-4000-8000-000000000006", "5a1e0c3d-0000-4000-8000-000000000007",
                    ]) == ["5a1e0c3d-0000-4000-8000-000000000007"]
            }),
        "media.ready → streak": Effect(
            given: { db in try snapWaitsForMedia(db) },
            then: { db in try Bool.fetchOne(db, sql: "SELECT ready FROM streak_snap") == true }),
        "media.rejected → streak": Effect(
            given: { db in try snapWaitsForMedia(db) },
            then: { db in
                try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM streak_snap) + (SELECT COUNT(*) FROM snap)")
                    == 0
            }),
        "media.ready → feed": Effect(
            given: states["post 9057a000-0000-4000-8000-000000000001 by user \(alice) waits for its media"]!,
            then: { db in
                try String.fetchOne(
                    db, sql: "SELECT media_state FROM post WHERE id = '9057a000-0000-4000-8000-000000000001'")
                    == "ready"
            }),
        "media.rejected → feed": Effect(
            given: states["post 9057a000-0000-4000-8000-000000000001 by user \(alice) waits for its media"]!,
            then: { db in
                try String.fetchOne(
                    db, sql: "SELECT media_state FROM post WHERE id = '9057a000-0000-4000-8000-000000000001'")
                    == "rejected"
            }),
        "friend_request.sent → alerts": Effect(then: { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM notification WHERE user_id = ? AND type = 'friend_request'",
                arguments: [alice]) == 1
        }),
        "friend_request.accepted → alerts": Effect(then: { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM notification WHERE user_id = ? AND type = 'friend_accepted'",
                arguments: [bob]) == 1
        }),
        // Both of the pair hear a streak is at risk or broke, in the catalog's words.
        "streak.at_risk → alerts": Effect(then: { db in
            try String.fetchAll(
                db, sql: "SELECT body FROM notification WHERE type = 'streak_at_risk' ORDER BY user_id")
                == [
                    "Your 12-day streak with Bob expires in 4 hours!",
                    "Your 12-day streak with Alice expires in 4 hours!",
                ]
        }),
        "streak.broken → alerts": Effect(then: { db in
            try Set(String.fetchAll(db, sql: "SELECT user_id FROM notification WHERE type = 'streak_broken'"))
                == [alice, bob]
        }),
        "streak.snapped → alerts": Effect(then: { db in
            try String.fetchAll(db, sql: "SELECT user_id || ' ' || body FROM notification WHERE type = 'streak_snap'")
                == ["\(alice) Bob sent a snap in your streak 🔥"]
        }),
        "streak.nudged → alerts": Effect(then: { db in
            try String.fetchAll(db, sql: "SELECT user_id || ' ' || title FROM notification WHERE type = 'nudge'")
                == ["\(bob) 👉 Alice nudged you"]
        }),
        // The daily window's notifications, with the day's prompt; the milestone to both.
        "streak.window_opened → alerts": Effect(then: { db in
            try String.fetchAll(db, sql: "SELECT user_id || ' ' || body FROM notification WHERE type = 'daily_window'")
                == ["\(alice) Something blue — Bob is waiting!"]
        }),
        "streak.window_closing → alerts": Effect(then: { db in
            try String.fetchAll(db, sql: "SELECT user_id FROM notification WHERE type = 'window_closing'") == [alice]
        }),
        "streak.milestone → alerts": Effect(then: { db in
            try String.fetchAll(
                db, sql: "SELECT body FROM notification WHERE type = 'streak_milestone' ORDER BY user_id")
                == [
                    "You and Bob hit 7 days! Share your achievement!",
                    "You and Alice hit 7 days! Share your achievement!",
                ]
        }),
        "content.hidden → feed": Effect(
            given: states["post 9057a000-0000-4000-8000-000000000001 by user \(alice) is listed"]!,
            then: { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM post WHERE hidden_at IS NOT NULL") == 1 }),
        "user.blocked → feed": Effect(then: { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM kit_block WHERE blocker_id = ? AND blocked_id = ?",
                arguments: [bob, alice])
                == 1
        }),
        "user.blocked → streak": Effect(
            given: { db in
                try db.execute(
                    sql: """
                        INSERT INTO streak (id, user_a, user_b, status, created_at)
                        VALUES ('57ea0000-0000-4000-8000-000000000001', ?, ?, 'active', '2026-11-22 10:00:00.000')
                        """, arguments: [alice, bob])
            },
            then: { db in
                // Broken for good, and media hears the two no longer share.
                try String.fetchOne(db, sql: "SELECT status || ' ' || broken_reason FROM streak") == "broken blocked"
                    && String.fetchOne(db, sql: "SELECT type FROM kit_outbox_event") == "media.sharing_ended"
            }),
        // Streak: a suspension, then a ban, each breaks Alice's streak that has a count, for good.
        "user.suspended → streak": streakForfeited("57ea0000-0000-4000-8000-0000000000f2", "suspended", events: 1),
        "user.banned → streak": streakForfeited("57ea0000-0000-4000-8000-0000000000f3", "banned", events: 2),
        "user.blocked → auth": Effect(then: { db in try BlockMirror.isBlocked(alice, bob, in: db) }),
        "user.unblocked → auth": Effect(then: { db in try !BlockMirror.isBlocked(alice, bob, in: db) }),
        "user.blocked → alerts": Effect(then: { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM kit_block WHERE blocker_id = ? AND blocked_id = ?",
                arguments: [bob, alice])
                == 1
        }),
        "user.unblocked → alerts": Effect(then: { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM kit_block") == 0
        }),
        "user.unblocked → feed": Effect(then: { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM kit_block") == 0
        }),
        "user.unblocked → streak": Effect(then: { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM kit_block") == 0
        }),
        // Bob mutes Alice, then lifts it: each consumer's copy follows.
        "user.muted → auth": bobMutesAlice(true),
        "user.muted → feed": bobMutesAlice(true),
        "user.muted → alerts": bobMutesAlice(true),
        "user.unmuted → auth": bobMutesAlice(false),
        "user.unmuted → feed": bobMutesAlice(false),
        "user.unmuted → alerts": bobMutesAlice(false),
        // Earlier events of the recording left Alice's media, post and streak in place.
        "user.deleted → media": Effect(
            then: { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM media") == 0 }),
        "user.deleted → feed": Effect(
            given: { db in
                try db.execute(
                    sql: """
                        INSERT INTO post (id, author_id, media_id, latitude, longitude, upvotes, created_at, created_ms)
                        VALUES ('9057a000-0000-4000-8000-000000000002', ?, '5a1e0c3d-0000-4000-8000-000000000002', 1, 1, 1,
                                '2026-11-22 10:00:00.000', 1795341600000);
                        """, arguments: [bob])
                try db.execute(
                    sql:
                        "INSERT INTO vote (post_id, user_id, value, updated_at) VALUES (?, ?, 1, '2026-11-22 10:00:00.000')",
                    arguments: ["9057a000-0000-4000-8000-000000000002", alice])
            },
            then: { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM post WHERE author_id = ?", arguments: [alice]) == 0
                    && Int.fetchOne(db, sql: "SELECT COUNT(*) FROM vote") == 0
                    && Int.fetchOne(db, sql: "SELECT upvotes FROM post WHERE author_id = ?", arguments: [bob]) == 0
            }),
        "user.deleted → streak": Effect(
            given: { db in
                // Alice's streak with Bob (an earlier event may have made it: ids are ordered
                // pairs) and Bob's with Carol; Bob made a card of each.
                let carol = "0ca00000-0000-4000-8000-000000000001"
                for (id, first, second) in [
                    ("5a000000-0000-4000-8000-000000000001", alice, bob),
                    ("5a000000-0000-4000-8000-000000000002", bob, carol),
                ] {
                    try db.execute(
                        sql: """
                            INSERT OR IGNORE INTO streak
                                (id, user_a, user_b, count, longest_count, last_completed_date, status, created_at)
                            VALUES (?, ?, ?, 3, 3, '2026-11-21', 'active', '2026-11-01 10:00:00.000')
                            """, arguments: [id, first, second])
                }
                try db.execute(
                    sql: """
                        INSERT INTO share_card (id, user_id, streak_id, media_id, style, count, created_at)
                        SELECT 'card-' || id, ?, id, 'card-media', 'orange', 3, '2026-11-22 10:00:00.000'
                        FROM streak WHERE ? IN (user_a, user_b)
                        """, arguments: [bob, bob])
            },
            then: { db in
                // Cards with Alice's name on them go with her, and media is asked to withdraw
                // Bob's image of theirs; Bob's card with Carol stays.
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM streak WHERE ? IN (user_a, user_b)", arguments: [alice])
                    == 0
                    && String.fetchAll(db, sql: "SELECT streak_id FROM share_card")
                        == ["5a000000-0000-4000-8000-000000000002"]
                    && String.fetchAll(
                        db, sql: "SELECT CAST(body AS TEXT) FROM kit_outbox_event WHERE type = 'media.withdrawn'"
                    ).map { $0.contains(#""ownerId":"\#(bob)""#) && $0.contains("card-media") } == [true]
            }),
        "user.deleted → alerts": Effect(then: { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM notification WHERE user_id = ? OR instr(data, ?) > 0",
                arguments: [alice, alice]) == 0
                && Int.fetchOne(db, sql: "SELECT COUNT(*) FROM duress_alert") == 0
        }),
        "user.deleted → moderation": Effect(
            given: { db in
                try db.execute(
                    sql: """
                        INSERT INTO block (blocker_id, blocked_id, created_at) VALUES (?, ?, '2026-11-22 10:00:00.000')
                        """, arguments: [alice, bob])
            },
            then: { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM block") == 0 }),
        "recovery_tokens.purchased → streak": Effect(then: { db in
            try Int.fetchOne(
                db, sql: "SELECT sum(delta) FROM recovery_token WHERE user_id = ? AND id = 'rc-event-0001'",
                arguments: [bob]) == 3
        }),
        "session.ended → alerts": Effect(
            given: { db in
                for (id, session, token) in [
                    (
                        "de000000-0000-4000-8000-000000000001", "5e550000-0000-4000-8000-000000000001",
                        "ExpoPushToken[a]"
                    ),
                    (
                        "de000000-0000-4000-8000-000000000002", "5e550000-0000-4000-8000-000000000002",
                        "ExpoPushToken[b]"
                    ),
                ] {
                    try db.execute(
                        sql: """
                            INSERT INTO device (id, user_id, session_id, provider, token, created_at, last_refreshed_at)
                            VALUES (?, ?, ?, 'expo', ?, '2026-11-22 10:00:00.000', '2026-11-22 10:00:00.000')
                            """, arguments: [id, alice, session, token])
                }
            },
            then: { db in
                // The ended session's device goes; the other session's stays.
                try String.fetchAll(db, sql: "SELECT session_id FROM device")
                    == ["5e550000-0000-4000-8000-000000000002"]
            }),
        "duress.raised → alerts": Effect(then: { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM duress_alert
                    WHERE incident_id = '1c1d0000-0000-4000-8000-000000000001' AND customer_ref = 'CUST001'
                      AND latitude = 51.5 AND device_platform = 'ios'
                    """) == 1
        }),
        "duress.raised → media": Effect(then: { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT incident_id FROM incident_session
                    WHERE session_id = '5e550000-0000-4000-8000-000000000001'
                      AND tenant_id = '7e7a0000-0000-4000-8000-000000000001'
                    """) == "1c1d0000-0000-4000-8000-000000000001"
        }),
        "challenge.created → alerts": Effect(then: { db in
            try challengeNotification("challenge_received", to: bob, link: "/challenge/\(challenge)", in: db)
        }),
        "challenge.accepted → alerts": Effect(then: { db in
            try challengeNotification("challenge_accepted", to: alice, link: "/challenge/\(challenge)", in: db)
        }),
        "challenge.clip_ready → alerts": Effect(then: { db in
            try challengeNotification("opponent_uploaded", to: alice, link: "/challenge/\(challenge)/playback", in: db)
        }),
        "challenge.voting_started → alerts": Effect(then: { db in
            try challengeNotification("voting_started", to: alice, link: "/challenge/\(challenge)/vote", in: db)
                && challengeNotification("voting_started", to: bob, link: "/challenge/\(challenge)/vote", in: db)
        }),
        "challenge.completed → alerts": Effect(then: { db in
            try challengeNotification("challenge_won", to: alice, link: "/challenge/\(challenge)/result", in: db)
                && challengeNotification("challenge_lost", to: bob, link: "/challenge/\(challenge)/result", in: db)
        }),
        "spot.nearby → alerts": Effect(then: { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM notification WHERE type = 'spot_nearby' AND user_id = ?
                    AND link = '/spots/5b070000-0000-4000-8000-000000000001'
                    AND body = 'Venice Beach Skatepark is close to you'
                    """, arguments: [alice]) == 1
        }),
        "spot.unlocked → alerts": Effect(then: { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM notification WHERE type = 'spot_unlocked' AND user_id = ?
                    AND link = '/spots/5b070000-0000-4000-8000-000000000001' AND body LIKE '%Venice Beach Skatepark%'
                    """, arguments: [alice]) == 1
        }),
        "user.followed → alerts": Effect(then: { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM notification WHERE type = 'new_follower' AND user_id = ? AND actor_id = ?
                    AND link = '/profile/' || ? AND body = 'Bob followed you'
                    """, arguments: [alice, bob, bob]) == 1
        }),
        "post.liked → alerts": Effect(then: { db in
            try postNotification("like", link: "/posts/9057a000-0000-4000-8000-000000000001", in: db)
        }),
        "post.replied → alerts": Effect(then: { db in
            try postNotification("reply", link: "/posts/9057a000-0000-4000-8000-000000000002", in: db)
        }),
        "post.mentioned → alerts": Effect(then: { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM notification WHERE type = 'mention' AND user_id = ? AND actor_id = ?
                    AND link = '/posts/9057a000-0000-4000-8000-000000000003' AND body = 'Bob mentioned you'
                    """, arguments: [alice, bob]) == 1
        }),
        "keyword_mutes.changed → feed": bobsMutedWords,
        "keyword_mutes.changed → alerts": bobsMutedWords,
        // A photo sent in a message: private, read by its recipient.
        "media.attached from alerts → media": Effect(
            given: { db in try privateMedia("5a1e0c3d-0000-4000-8000-00000000000c", in: db) },
            then: { db in
                try String.fetchOne(
                    db, sql: "SELECT visibility FROM media WHERE id = '5a1e0c3d-0000-4000-8000-00000000000c'")
                    == "private"
                    && String.fetchAll(
                        db,
                        sql: "SELECT user_id FROM media_reader WHERE media_id = '5a1e0c3d-0000-4000-8000-00000000000c'")
                        == [bob]
                    && String.fetchAll(
                        db,
                        sql: """
                            SELECT service || ' ' || reference_type FROM media_reference
                            WHERE media_id = '5a1e0c3d-0000-4000-8000-00000000000c'
                            """) == ["alerts message"]
            }),
        "post.reposted → alerts": Effect(then: { db in
            try postNotification("repost", link: "/posts/9057a000-0000-4000-8000-000000000001", in: db)
        }),
        // A deleted post's photo: once nothing references it, only its owner reads it.
        // A user's avatar: public to everyone signed in, referenced by auth for that user.
        "media.attached from auth → media": Effect(
            given: { db in try privateMedia("5a1e0c3d-0000-4000-8000-00000000000a", in: db) },
            then: { db in
                try String.fetchOne(
                    db, sql: "SELECT visibility FROM media WHERE id = '5a1e0c3d-0000-4000-8000-00000000000a'")
                    == "public"
                    && String.fetchAll(
                        db,
                        sql: """
                            SELECT service || ' ' || reference_type || ' ' || reference_id FROM media_reference
                            WHERE media_id = '5a1e0c3d-0000-4000-8000-00000000000a'
                            """) == ["auth avatar \(alice)"]
            }),
        // Another avatar chosen: the old one is the owner's alone again.
        "media.detached from auth → media": Effect(
            given: { db in
                try privateMedia("5a1e0c3d-0000-4000-8000-00000000000b", in: db)
                try db.execute(
                    sql: """
                        UPDATE media SET visibility = 'public' WHERE id = '5a1e0c3d-0000-4000-8000-00000000000b';
                        INSERT INTO media_reference (media_id, service, reference_type, reference_id)
                        VALUES ('5a1e0c3d-0000-4000-8000-00000000000b', 'auth', 'avatar', ?)
                        """, arguments: [alice])
            },
            then: { db in
                try String.fetchOne(
                    db, sql: "SELECT visibility FROM media WHERE id = '5a1e0c3d-0000-4000-8000-00000000000b'")
                    == "private"
                    && Int.fetchOne(
                        db,
                        sql:
                            "SELECT COUNT(*) FROM media_reference WHERE media_id = '5a1e0c3d-0000-4000-8000-00000000000b'"
                    )
                        == 0
            }),
        // A snap moderation hid: its partner no longer reads the photo.
        "media.detached from streak → media": Effect(
            given: { db in
                try privateMedia("5a1e0c3d-0000-4000-8000-00000000000c", readBy: bob, in: db)
                try db.execute(
                    sql: """
                        INSERT INTO media_reference (media_id, service, reference_type, reference_id)
                        VALUES ('5a1e0c3d-0000-4000-8000-00000000000c', 'streak', 'snap', '5a4b0000-0000-4000-8000-000000000001')
                        """)
            },
            then: { db in
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT (SELECT COUNT(*) FROM media_reference WHERE media_id = '5a1e0c3d-0000-4000-8000-00000000000c')
                             + (SELECT COUNT(*) FROM media_reader WHERE media_id = '5a1e0c3d-0000-4000-8000-00000000000c')
                        """) == 0
            }),
        "media.detached → media": Effect(
            given: { db in
                try privateMedia(
                    "5a1e0c3d-0000-4000-8000-000000000009", madeFor: ("feed", "post"), readBy: bob, in: db)
                try db.execute(
                    sql: "UPDATE media SET visibility = 'public' WHERE id = '5a1e0c3d-0000-4000-8000-000000000009'")
            },
            then: { db in
                try String.fetchOne(
                    db, sql: "SELECT visibility FROM media WHERE id = '5a1e0c3d-0000-4000-8000-000000000009'")
                    == "private"
                    && Int.fetchOne(
                        db,
                        sql: """
                            SELECT (SELECT COUNT(*) FROM media_reference WHERE media_id = '5a1e0c3d-0000-4000-8000-000000000009')
                                 + (SELECT COUNT(*) FROM media_reader WHERE media_id = '5a1e0c3d-0000-4000-8000-000000000009')
                            """) == 0
            }),
        // A moderator's actions: a hidden post shown again, another removed (hidden, kept).
        "content.restored → feed": Effect(
            given: { db in try moderatedPost("9057a000-0000-4000-8000-0000000000c1", hidden: true, in: db) },
            then: { db in
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM post WHERE id = '9057a000-0000-4000-8000-0000000000c1'
                        AND hidden_at IS NULL
                        """
                )
                    == 1
            }),
        "content.removed → feed": Effect(
            given: { db in try moderatedPost("9057a000-0000-4000-8000-0000000000c2", hidden: false, in: db) },
            then: { db in
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM post WHERE id = '9057a000-0000-4000-8000-0000000000c2'
                        AND hidden_at IS NOT NULL
                        """
                )
                    == 1
            }),
        "content.removed → alerts": moderationNotice(
            "content_removed", title: "Your post was removed", body: "Graphic violence. You can appeal."),
        "user.warned → alerts": moderationNotice(
            "moderation_warning", title: "A warning from the moderators", body: "Spam in replies"),
        "user.suspended → alerts": moderationNotice(
            "account_suspended", title: "Your account is suspended",
            body: "Harassment. Until 2026-11-29 10:00 UTC you can read but not post; you can appeal."),
        "user.reinstated → alerts": moderationNotice(
            "account_reinstated", title: "Your account is active again", body: "You can post again."),
        "appeal.decided → alerts": moderationNotice(
            "appeal_decided", title: "Your appeal was decided", body: "The action was undone: The reply quoted a film"),
        // Auth: Alice (made by an earlier event of the recording) is suspended, banned with her
        // session ended, then the suspension's action is reversed (the ban, another action, stays).
        "user.suspended → auth": Effect(then: { db in
            try Row.fetchOne(
                db, sql: "SELECT suspended_until, suspension_action_id FROM account_restriction WHERE user_id = ?",
                arguments: [alice]
            ).map { row in
                (row["suspended_until"] as Date?) != nil && (row["suspension_action_id"] as String?) == moderationAction
            } ?? false
        }),
        "user.banned → auth": Effect(
            given: { db in
                try db.execute(
                    sql: """
                        INSERT INTO session (id, user_id, created_at, last_used_at)
                        VALUES ('5e550000-0000-4000-8000-0000000000b1', ?, '2026-11-22 10:00:00.000', '2026-11-22 10:00:00.000')
                        """, arguments: [alice])
            },
            then: { db in
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM account_restriction WHERE user_id = ? AND banned_at IS NOT NULL",
                    arguments: [alice]) == 1
                    && Int.fetchOne(
                        db,
                        sql: """
                            SELECT COUNT(*) FROM session WHERE id = '5e550000-0000-4000-8000-0000000000b1'
                            AND revoked_at IS NULL
                            """
                    ) == 0
                    && Int.fetchOne(db, sql: "SELECT COUNT(*) FROM kit_outbox_event WHERE type = 'session.ended'") == 1
            }),
        // The one recorded action both suspended and banned: reversing it lifts both.
        "user.reinstated → auth": Effect(then: { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM account_restriction
                    WHERE user_id = ? AND suspended_until IS NULL AND banned_at IS NULL
                    """, arguments: [alice]) == 1
        }),
        // Alerts hides and restores messages alone: a post's hiding or restoration leaves a
        // message of the same id as it was.
        "content.hidden → alerts": Effect(
            given: { db in try messageToBob("9057a000-0000-4000-8000-000000000001", hidden: false, in: db) },
            then: { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM hidden_message") == 0 }),
        "content.restored → alerts": Effect(
            given: { db in try messageToBob("9057a000-0000-4000-8000-0000000000c1", hidden: true, in: db) },
            then: { db in
                try Int.fetchOne(
                    db,
                    sql: "SELECT COUNT(*) FROM hidden_message WHERE message_id = '9057a000-0000-4000-8000-0000000000c1'"
                )
                    == 1
            }),
        // Streak hides and restores snaps alone: a post's hiding, removal or restoration leaves
        // a snap of the same id as it was.
        "content.hidden → streak": Effect(
            given: { db in try snapNamed("9057a000-0000-4000-8000-000000000001", hidden: false, in: db) },
            then: { db in try snapHidden("9057a000-0000-4000-8000-000000000001", false, in: db) }),
        "content.restored → streak": Effect(
            given: { db in try snapNamed("9057a000-0000-4000-8000-0000000000c1", hidden: true, in: db) },
            then: { db in try snapHidden("9057a000-0000-4000-8000-0000000000c1", true, in: db) }),
        "content.removed → streak": Effect(
            given: { db in try snapNamed("9057a000-0000-4000-8000-0000000000c2", hidden: false, in: db) },
            then: { db in try snapHidden("9057a000-0000-4000-8000-0000000000c2", false, in: db) }),
        // Media acts on held media alone: a post's restoration or removal leaves a held media
        // of the same id alone.
        "content.restored → media": Effect(
            given: { db in try heldMedia("9057a000-0000-4000-8000-0000000000c1", in: db) },
            then: { db in
                try String.fetchOne(
                    db, sql: "SELECT status FROM media WHERE id = '9057a000-0000-4000-8000-0000000000c1'")
                    == "held"
            }),
        "content.removed → media": Effect(
            given: { db in try heldMedia("9057a000-0000-4000-8000-0000000000c2", in: db) },
            then: { db in
                try String.fetchOne(
                    db, sql: "SELECT status FROM media WHERE id = '9057a000-0000-4000-8000-0000000000c2'")
                    == "held"
            }),
        // Screening held a photo: it waits in the queue, hidden, and the log says why.
        "media.held → moderation": Effect(then: { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM moderation_target WHERE target_type = 'media'
                    AND target_id = '5a1e0c3d-0000-4000-8000-0000000000e1' AND owner_id = ? AND hidden_at IS NOT NULL
                    AND first_open_at IS NOT NULL
                    """, arguments: [alice]) == 1
                && String.fetchOne(db, sql: "SELECT reason FROM audit_entry WHERE event = 'media.held'")
                    == "screening scored 0.93 (nudity)"
        }),
        "profile.counts_changed → auth": Effect(
            given: { db in
                try db.execute(
                    sql: """
                        INSERT INTO user (id, email, password_hash, display_name, created_at, updated_at)
                        VALUES (?, 'alice@example.com', 'x', 'Alice', '2026-11-22 10:00:00.000', '2026-11-22 10:00:00.000')
                        """, arguments: [alice])
            },
            then: { db in
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT followers, following, posts, json_extract(challenges, '$.points') AS points, revision
                        FROM profile_count WHERE user_id = ?
                        """,
                    arguments: [alice]) == ["followers": 12, "following": 3, "posts": 7, "points": 7, "revision": 15]
            }),
        "duress.cleared → alerts": Effect(then: { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM duress_alert
                    WHERE incident_id = '1c1d0000-0000-4000-8000-000000000001' AND resolved_at IS NOT NULL
                    """) == 1
        }),
    ]

    @Test(arguments: [ServiceName.auth, .media, .feed, .streak, .alerts, .moderation])
    func theConsumerAppliesEachRecordedEventOnce(consumer: ServiceName) async throws {
        let events = try Self.load("events", as: [EventContract].self).filter { $0.consumers.contains(consumer) }
        #expect(!events.isEmpty)
        try await withRunningService(consumer) { service in
            for event in events {
                let type = try event.envelope.string("type")
                let effect = try #require(
                    Self.effects["\(type) from \(event.producer.rawValue) → \(consumer.rawValue)"]
                        ?? Self.effects["\(type) → \(consumer.rawValue)"], "no effect for \(type)")
                try await service.database().write(effect.given)
                let body = try event.envelope.data()
                let producers = EventCatalog.producers[EventType(rawValue: type)] ?? []
                let impostor = try #require(ServiceName.services.first { !producers.contains($0) && $0 != consumer })
                let stranger = try await service.call("POST", "/internal/events", as: impostor, body: body)
                #expect(stranger.status == 403, "\(type) from the wrong producer")
                let first = try await service.call("POST", "/internal/events", as: event.producer, body: body)
                #expect(first.status == 200, "\(type): \(first.text)")
                #expect(first.text.contains("applied"))
                #expect(try await service.database().read(effect.then), "\(type) → \(consumer)")
                let again = try await service.call("POST", "/internal/events", as: event.producer, body: body)
                #expect(again.text.contains("duplicate"), "\(type)")
                if type == UserDeleted.eventType.rawValue { try await Self.liftTombstone(of: Self.alice, in: service) }
            }
        }
    }

    /// A deletion is final: the consumer's copy of the person becomes a tombstone that keeps
    /// later events about them from doing anything. The recording goes on using Alice after it
    /// deletes her, so once her deletion is checked (tombstone included), it is lifted here.
    static func liftTombstone(of user: String, in service: RunningService) async throws {
        try await service.database().write { db in
            guard try db.tableExists(ProfileMirrorRecord.databaseTableName) else { return }
            let copy = try ProfileMirror.profiles([user], in: db)[user]
            #expect(copy?.deleted == true && copy?.displayName == "", "no tombstone for \(user)")
            try ProfileMirrorRecord.deleteOne(db, key: user)
        }
    }

    // MARK: - Running providers

    struct RunningService {
        let name: ServiceName
        let directory: TestDataDirectory
        let url: String

        /// The service's own store; waits while the service (its jobs, its outbox) writes.
        func database() throws -> DatabaseQueue {
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            return try DatabaseQueue(
                path: directory.url.appendingPathComponent("\(name.rawValue)/\(name.rawValue).sqlite").path,
                configuration: configuration)
        }

        func call(
            _ method: String, _ path: String, as caller: ServiceName, body: Data? = nil
        ) async throws -> FullResponse {
            var headers: [(String, String)] = []
            if body != nil { headers.append(("content-type", "application/json")) }
            return try await TestHTTP.withClient(dataDirectory: directory.url, identity: caller) { client in
                try await client.call(HTTPMethod(rawValue: method), url + path, bytes: body, headers: headers)
            }
        }
    }

    func withRunningService(_ name: ServiceName, _ body: (RunningService) async throws -> Void) async throws {
        try await withTestDataDirectory { directory in
            let port = try FreePort.next()
            let reader = directory.reader(["http.port": "\(port)"])
            let running: RunningApplication =
                switch name {
                case .auth: try await RunningApplication.start(AuthService.buildApplication(reader: reader))
                case .media: try await RunningApplication.start(MediaService.buildApplication(reader: reader))
                case .feed: try await RunningApplication.start(FeedService.buildApplication(reader: reader))
                case .streak: try await RunningApplication.start(StreakService.buildApplication(reader: reader))
                case .alerts: try await RunningApplication.start(AlertsService.buildApplication(reader: reader))
                case .moderation: try await RunningApplication.start(ModerationService.buildApplication(reader: reader))
                default: throw StackError("\(name) is not a service")
                }
            let service = RunningService(name: name, directory: directory, url: "https://127.0.0.1:\(port)")
            do {
                #expect(
                    await eventually { (try? await service.call("GET", "/health/live", as: .pinhole))?.status == 200 })
                try await body(service)
            } catch {
                await running.stop()
                throw error
            }
            await running.stop()
        }
    }
}
