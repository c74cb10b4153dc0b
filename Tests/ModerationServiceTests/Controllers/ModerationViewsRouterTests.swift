import Foundation
import HummingbirdTesting
import ServiceHTTP
import TestSupport
import Testing

@testable import ModerationService

private typealias W = ModerationWorld

/// The queue a moderator works through names its people: whose object it is and who reported
/// it, with their avatars, from moderation's own copy of profiles.
@Suite struct ModerationViewsRouterTests {
    @Test func theQueueCarriesTheOwnerAndEachReporter() async throws {
        try await withModeration { world in
            try world.harness.mirror(
                people: [
                    UserSummary(id: W.author, displayName: "Ana Author", username: "ana"),
                    UserSummary(id: W.people[1], displayName: "Rae Reporter", username: "rae"),
                ])
            world.harness.clock.advance(by: 1)
            #expect(try await world.report(.reply, W.reply, by: W.people[1]).status == .created)
            world.harness.clock.advance(by: 1)
            #expect(try await world.report(.reply, W.reply, by: W.people[2]).status == .created)

            let moderator = try await world.token(W.moderators[0])
            let queue = try await world.client.get("/v1/moderation/queue", token: moderator).json(Page<QueueItem>.self)
            let item = try #require(queue.items.first)
            #expect(item.owner?.id == W.author && item.owner?.displayName == "Ana Author")
            #expect(item.owner?.username == "ana")
            // A reporter the copy does not know yet shows their id, never a missing entry.
            #expect(item.reports.map { $0.reporter?.displayName } == ["Rae Reporter", ""])
            #expect(item.reports.map { $0.reporter?.id } == [W.people[1], W.people[2]])

            // A deleted account shows as such.
            try world.harness.mirrorDeletion(of: W.author)
            let again = try await world.client.get("/v1/moderation/queue", token: moderator).json(Page<QueueItem>.self)
            #expect(again.items.first?.owner == .deletedAccount(W.author))
        }
    }
}
