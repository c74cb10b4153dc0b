import Foundation
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import TestSupport
import Testing

@testable import ModerationService

@Suite struct ModerationRouterTests {
    static let people = ModerationWorld.people
    static let post = ModerationWorld.post

    @Test func keywordMutesAreKeptPerPhraseAndEachChangeSendsTheWholeList() async throws {
        try await withModeration { world in
            let (harness, client) = (world.harness, world.client)
            let token = try await world.token(Self.people[1])
            let other = try await world.token(Self.people[2])
            let week = harness.clock.now().addingTimeInterval(7 * 86400)
            let first = try await client.post("/v1/mutes/words", KeywordMuteCreate(phrase: "  Spoiler "), token: token)
            #expect(first.status == .created)
            let spoiler = try first.json(KeywordMute.self)
            #expect(spoiler.phrase == "Spoiler" && spoiler.until == nil)
            // The same phrase in another case and accent is the same mute: a new end replaces the old.
            let again = try await client.post(
                "/v1/mutes/words", KeywordMuteCreate(phrase: "SPÖILER", until: week), token: token)
            #expect(try again.status == .ok && again.json(KeywordMute.self).id == spoiler.id)
            harness.clock.advance(by: 1)
            let finale = try await client.post(
                "/v1/mutes/words", KeywordMuteCreate(phrase: "the finale"), token: token
            ).json(KeywordMute.self)
            for bad in [
                KeywordMuteCreate(phrase: "  "), KeywordMuteCreate(phrase: "!!!"),
                KeywordMuteCreate(phrase: String(repeating: "a", count: 101)),
                KeywordMuteCreate(phrase: "late", until: harness.clock.now().addingTimeInterval(-1)),
            ] {
                #expect(try await client.post("/v1/mutes/words", bad, token: token).status == .badRequest)
            }
            let listed = try await client.get("/v1/mutes/words", token: token).json(Page<KeywordMute>.self)
            #expect(listed.items.map(\.phrase) == ["Spoiler", "the finale"])
            #expect(try await client.get("/v1/mutes/words", token: other).json(Page<KeywordMute>.self).items.isEmpty)
            // Someone else's mute is not theirs to remove.
            #expect(try await client.request(.delete, "/v1/mutes/words/\(finale.id)", token: other).status == .notFound)
            #expect(
                try await client.request(.delete, "/v1/mutes/words/\(finale.id)", token: token).status == .noContent)
            #expect(try await client.request(.delete, "/v1/mutes/words/\(finale.id)", token: token).status == .notFound)
            // Each change sent the whole list, with a growing revision.
            let sent = try harness.outboxEvents(KeywordMutesChanged.self)
            #expect(sent.map(\.revision) == [1, 2, 3, 4])
            #expect(
                sent.map { $0.mutes.map(\.phrase) } == [
                    ["Spoiler"], ["Spoiler"], ["Spoiler", "the finale"], ["Spoiler"],
                ])
            #expect(sent.last?.mutes.first?.until.map(JSONCoding.milliseconds) == JSONCoding.milliseconds(week))
            // Past its end a mute no longer holds.
            harness.clock.advance(by: 8 * 86400)
            let later = try await world.token(Self.people[1])
            #expect(try await client.get("/v1/mutes/words", token: later).json(Page<KeywordMute>.self).items.isEmpty)
        }
    }

    @Test func aUserMutesAtMostTwoHundredPhrases() async throws {
        try await withModeration { world in
            let client = world.client
            let token = try await world.token(Self.people[3])
            for index in 0..<200 {
                #expect(
                    try await client.post("/v1/mutes/words", KeywordMuteCreate(phrase: "word\(index)"), token: token)
                        .status == .created)
            }
            let refused = try await client.post("/v1/mutes/words", KeywordMuteCreate(phrase: "one more"), token: token)
            #expect(refused.status == .conflict && refused.error?.code == .conflict)
        }
    }

    /// Blocks and mutes of people alike: not oneself, only someone auth knows, idempotent,
    /// announced once each way, listed only to the one who made them.
    @Test(arguments: [
        ("/v1/blocks", ["user.blocked", "user.unblocked"]), ("/v1/mutes/users", ["user.muted", "user.unmuted"]),
    ])
    func blocksAndMutesAreIdempotentAndAnnouncedOnce(path: String, events: [String]) async throws {
        try await withModeration { world in
            let (harness, client) = (world.harness, world.client)
            let me = try await world.token(Self.people[1])
            let target = Self.people[2]
            #expect(try await client.post(path, BlockCreate(userId: Self.people[1]), token: me).status == .badRequest)
            #expect(try await client.post(path, BlockCreate(userId: "someone"), token: me).status == .badRequest)
            #expect(try await client.post(path, BlockCreate(userId: Self.post), token: me).status == .notFound)
            #expect(try await client.post(path, BlockCreate(userId: target), token: me).status == .created)
            #expect(try await client.post(path, BlockCreate(userId: target), token: me).status == .ok)
            #expect(try harness.outboxTypes() == [events[0]])
            if path == "/v1/blocks" {
                #expect(
                    try harness.outboxEvents(UserBlocked.self) == [
                        UserBlocked(blockerId: Self.people[1], blockedId: target)
                    ])
            } else {
                #expect(
                    try harness.outboxEvents(UserMuted.self) == [UserMuted(muterId: Self.people[1], mutedId: target)])
            }
            #expect(try await client.get(path, token: me).json(Page<Block>.self).items.map(\.userId) == [target])
            #expect(
                try await client.get(path, token: try await world.token(target)).json(Page<Block>.self)
                    .items.isEmpty)
            #expect(try await client.request(.delete, "\(path)/\(target)", token: me).status == .noContent)
            #expect(try await client.request(.delete, "\(path)/\(target)", token: me).status == .notFound)
            #expect(try harness.outboxTypes() == events)
        }
    }

    @Test func aMuteIsNotABlock() async throws {
        try await withModeration { world in
            let (harness, client) = (world.harness, world.client)
            let me = try await world.token(Self.people[1])
            let muted = try await client.post("/v1/mutes/users", BlockCreate(userId: Self.people[3]), token: me)
            #expect(muted.status == .created)
            #expect(try await client.get("/v1/blocks", token: me).json(Page<Block>.self).items.isEmpty)
            #expect(try await client.request(.delete, "/v1/blocks/\(Self.people[3])", token: me).status == .notFound)
            #expect(try harness.outboxTypes() == ["user.muted"])
        }
    }
}
