import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import StreakService

/// The friend feed, the photo history and what media's answers do to a snap.
extension StreakRouterTests {
    func feed(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, as user: String
    ) async throws -> [StreakFeedItem] {
        try await client.get("/v1/streaks/feed", token: try await harness.token(for: user))
            .json(Page<StreakFeedItem>.self).items
    }

    @Test func aFriendsSnapIsRevealedOnceYouSnapForTheSameDayAndItsMediaBecomesYoursToRead() async throws {
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z")) { harness, client, _ in
            let id = try await befriend(harness, client, Self.alice, Self.bob).id
            _ = try await befriend(harness, client, Self.carol, Self.alice)
            #expect(try await feed(harness, client, as: Self.alice).map(\.today.friendState) == [.waiting, .waiting])

            let bobs = try await client.post(
                "/v1/snaps", SnapCreate(mediaId: Self.media(Self.bob, 0), timeZone: "UTC", caption: "coffee"),
                token: try await harness.token(for: Self.bob)
            ).json(Snap.self)
            var item = try #require(try await feed(harness, client, as: Self.alice).first { $0.streak.id == id })
            #expect(item.today.date == "2026-03-10" && item.today.friendState == .hidden)
            #expect(item.today.friend == nil && item.today.mine == nil)
            // Media only learns the reference: nobody may read Bob's photo yet.
            #expect(
                try harness.outboxEvents(MediaAttached.self) == [
                    MediaAttached(
                        mediaId: Self.media(Self.bob, 0), ownerId: Self.bob, visibility: .private,
                        referenceType: "snap", referenceId: bobs.id, readers: [])
                ])

            let alices = try await snap(harness, client, Self.alice, day: 0, zone: "UTC", to: [id]).json(Snap.self)
            item = try #require(try await feed(harness, client, as: Self.alice).first { $0.streak.id == id })
            #expect(item.today.friendState == .revealed)
            #expect(item.today.friend?.caption == "coffee" && item.today.friend?.mediaId == Self.media(Self.bob, 0))
            #expect(item.today.mine?.id == alices.id && item.today.mine?.counted == true)
            #expect(item.streak.count == 1)
            // Each may now read the other's photo, and no one else's.
            let attached = try harness.outboxEvents(MediaAttached.self).dropFirst()
            #expect(attached.map(\.mediaId) == [Self.media(Self.bob, 0), Self.media(Self.alice, 0)])
            #expect(attached.map(\.readers) == [[Self.alice], [Self.bob]])
            let bobsFeed = try await feed(harness, client, as: Self.bob)
            #expect(bobsFeed.map(\.today.friendState) == [.revealed])
            #expect(bobsFeed.first?.today.friend?.id == alices.id)

            // Moderation hides Bob's snap: Alice sees the day withheld (it still counts), Bob
            // still sees his own, until a moderator restores it.
            let outbox = harness.runtime.makeOutbox()
            try await harness.database().write { db in
                try StreakStore.hide(.snap, bobs.id, at: harness.clock.now(), outbox: outbox, in: db)
                // Hidden and then removed: detached once.
                try StreakStore.hide(.snap, bobs.id, at: harness.clock.now(), outbox: outbox, in: db)
            }
            // Nor can Alice read the photo by id: its reference goes, so media keeps it Bob's alone.
            #expect(
                try harness.outboxEvents(MediaDetached.self) == [
                    MediaDetached(
                        mediaId: Self.media(Self.bob, 0), ownerId: Self.bob, referenceType: "snap", referenceId: bobs.id
                    )
                ])
            item = try #require(try await feed(harness, client, as: Self.alice).first { $0.streak.id == id })
            #expect(item.today.friendState == .withheld && item.today.friend == nil && item.streak.count == 1)
            #expect(try await feed(harness, client, as: Self.bob).first?.today.mine?.id == bobs.id)
            let history = try await client.get(
                "/v1/streaks/\(id)/photos", token: try await harness.token(for: Self.alice)
            ).json(Page<StreakDay>.self)
            #expect(history.items.map(\.friendState) == [.withheld])
            try await harness.database().write { db in
                try StreakStore.restore(ContentRestored(targetType: .snap, targetId: bobs.id), outbox: outbox, in: db)
            }
            // Restored: Alice (who snapped that day too) reads it again.
            #expect(
                try harness.outboxEvents(MediaAttached.self).last
                    == MediaAttached(
                        mediaId: Self.media(Self.bob, 0), ownerId: Self.bob, visibility: .private,
                        referenceType: "snap", referenceId: bobs.id, readers: [Self.alice]))
            item = try #require(try await feed(harness, client, as: Self.alice).first { $0.streak.id == id })
            #expect(item.today.friendState == .revealed && item.today.friend?.id == bobs.id)
        }
    }

    /// StreakSnap, "when a user's local date is behind UTC's": a pair in Los Angeles keeps the
    /// 3rd at 07:36 UTC; moving both phones to Kiritimati (the 4th there already) keeps no
    /// other day until midnight in Los Angeles, and then only one.
    @Test func movingAcrossTheDateLineBanksNoDay() async throws {
        try await withStreak(at: Self.instant("2026-12-04T07:36:00Z")) { harness, client, _ in
            let id = try await befriend(harness, client, Self.alice, Self.bob).id
            for user in [Self.alice, Self.bob] {
                #expect(try await snap(harness, client, user, day: 0, zone: "America/Los_Angeles").status == .created)
            }
            var kept = try await streak(harness, client, id, as: Self.alice)
            #expect(kept.count == 1 && kept.lastCompletedDate == "2026-12-03")
            // The friend feed's card is the friend's latest snap, of the day it was counted for.
            func card() async throws -> (String, String?) {
                let today = try #require(try await feed(harness, client, as: Self.alice).first).today
                return (today.date, today.friend?.mediaId)
            }
            #expect(try await card() == ("2026-12-03", Self.media(Self.bob, 0)))
            for user in [Self.alice, Self.bob] {
                let moved = try await snap(harness, client, user, day: 1, zone: "Pacific/Kiritimati")
                #expect(moved.status == .conflict, "still the 3rd where their day was counted")
            }
            #expect(try await streak(harness, client, id, as: Self.alice).count == 1)

            harness.clock.set(Self.instant("2026-12-04T08:00:00Z"))  // midnight in Los Angeles
            for user in [Self.alice, Self.bob] {
                let next = try await snap(harness, client, user, day: 2, zone: "Pacific/Kiritimati")
                #expect(next.status == .created)
                #expect(try next.json(Snap.self).localDate == "2026-12-04")
            }
            kept = try await streak(harness, client, id, as: Self.alice)
            #expect(kept.count == 2 && kept.lastCompletedDate == "2026-12-04")
            #expect(try await card() == ("2026-12-04", Self.media(Self.bob, 2)))

            // 00:00 on the 5th in Kiritimati is still the 4th where that day was counted.
            harness.clock.set(Self.instant("2026-12-04T10:00:00Z"))
            for user in [Self.alice, Self.bob] {
                #expect(try await snap(harness, client, user, day: 3, zone: "Pacific/Kiritimati").status == .conflict)
            }
            #expect(try await streak(harness, client, id, as: Self.alice).count == 2)
            #expect(try await card() == ("2026-12-04", Self.media(Self.bob, 2)))
        }
    }

    @Test func theHistoryPagesDaysNewestFirstAndKeepsUnansweredSnapsHidden() async throws {
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z")) { harness, client, _ in
            let id = try await befriend(harness, client, Self.alice, Self.bob).id
            for day in 0..<3 {
                _ = try await snap(harness, client, Self.bob, day: day, zone: "UTC")
                if day != 1 { _ = try await snap(harness, client, Self.alice, day: day, zone: "UTC") }
                harness.clock.advance(by: 86_400)
            }
            let alice = try await harness.token(for: Self.alice)
            let first = try await client.get("/v1/streaks/\(id)/photos?limit=2", token: alice)
                .json(Page<StreakDay>.self)
            #expect(first.items.map(\.date) == ["2026-03-12", "2026-03-11"])
            #expect(first.items.map(\.friendState) == [.revealed, .hidden])
            #expect(first.items[1].friend == nil && first.items[1].mine == nil)
            let cursor = try #require(first.nextCursor)
            let rest = try await client.get("/v1/streaks/\(id)/photos?limit=2&cursor=\(cursor)", token: alice)
                .json(Page<StreakDay>.self)
            #expect(rest.items.map(\.date) == ["2026-03-10"] && rest.nextCursor == nil)
            // Bob sees the day Alice missed as missed, with his own snap.
            let bobs = try await client.get("/v1/streaks/\(id)/photos", token: try await harness.token(for: Self.bob))
                .json(Page<StreakDay>.self)
            #expect(bobs.items.map(\.friendState) == [.revealed, .missed, .revealed])
            #expect(bobs.items[1].mine?.localDate == "2026-03-11")

            let carol = try await harness.token(for: Self.carol)
            #expect(try await client.get("/v1/streaks/\(id)/photos", token: carol).status == .notFound)
            #expect(try await client.get("/v1/streaks/\(id)/photos?limit=61", token: alice).status == .badRequest)
            #expect(try await client.get("/v1/streaks/\(id)/photos?cursor=x", token: alice).status == .badRequest)
        }
    }

    @Test func aSnapCountsOnlyOnceItsMediaIsReadyAndARejectedOneIsWithdrawn() async throws {
        let video = Self.media(Self.alice, 0)
        let retake = Self.media(Self.alice, 1)
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z"), processing: [video, retake]) {
            harness, client, _ in
            let id = try await befriend(harness, client, Self.alice, Self.bob).id
            let store = try store(harness)
            _ = try await snap(harness, client, Self.bob, day: 0, zone: "UTC")
            let sent = try await snap(harness, client, Self.alice, day: 0, zone: "UTC").json(Snap.self)
            #expect(sent.streaks.map(\.count) == [0])
            #expect(try await streak(harness, client, id, as: Self.bob).snappedByFriend == false)
            var mine = try #require(try await feed(harness, client, as: Self.alice).first?.today.mine)
            #expect(mine.counted == false)

            // The same media named with someone else's id changes nothing.
            try await harness.database().write { db in
                try store.mediaReady(
                    MediaReady(mediaId: video, ownerId: Self.bob), at: Self.instant("2026-03-10T11:00:00Z"), in: db)
            }
            #expect(try await feed(harness, client, as: Self.alice).first?.today.mine?.counted == false)
            try await harness.database().write { db in
                try store.mediaReady(
                    MediaReady(mediaId: video, ownerId: Self.alice), at: Self.instant("2026-03-10T11:00:00Z"), in: db)
            }
            mine = try #require(try await feed(harness, client, as: Self.alice).first?.today.mine)
            #expect(mine.counted == true)
            #expect(try await streak(harness, client, id, as: Self.bob).count == 1)

            // The next day Alice's video is rejected: her snap is withdrawn and she may send another.
            harness.clock.advance(by: 86_400)
            _ = try await snap(harness, client, Self.alice, day: 1, zone: "UTC")
            #expect(try await snap(harness, client, Self.alice, day: 2, zone: "UTC").status == .conflict)
            try await harness.database().write { db in
                try StreakStore.mediaRejected(
                    MediaRejected(mediaId: retake, ownerId: Self.alice, reason: "corrupt"), in: db)
            }
            #expect(try await feed(harness, client, as: Self.alice).first?.today.mine == nil)
            #expect(try await snap(harness, client, Self.alice, day: 2, zone: "UTC").status == .created)
        }
    }
    @Test func calendarsShowEachDayOfAStreakAndEverySnapOfAUser() async throws {
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z")) { harness, client, runner in
            let id = try await befriend(harness, client, Self.alice, Self.bob).id
            for day in 0..<3 {
                _ = try await snap(harness, client, Self.bob, day: day, zone: "UTC")
                if day < 2 { _ = try await snap(harness, client, Self.alice, day: day, zone: "UTC") }
                harness.clock.advance(by: 86_400)
            }
            // The 12th closed with only Bob's snap: it broke the streak. The 13th nobody snapped.
            harness.clock.set(Self.instant("2026-03-14T10:00:00Z"))
            await runner.runDue()
            _ = try await snap(harness, client, Self.alice, day: 4, zone: "UTC")
            let alice = try await harness.token(for: Self.alice)
            let calendar = try await client.get("/v1/streaks/\(id)/calendar?days=5", token: alice)
                .json(HeatmapCalendar.self)
            #expect(calendar == HeatmapCalendar(from: "2026-03-10", to: "2026-03-14", days: [3, 3, 4, 0, 1]))
            let bobs = try await client.get("/v1/streaks/\(id)/calendar", token: try await harness.token(for: Self.bob))
                .json(HeatmapCalendar.self)
            #expect(bobs.days.count == 90 && bobs.to == "2026-03-14" && bobs.days.suffix(5) == [3, 3, 4, 0, 2])
            let mine = try await client.get("/v1/streaks/calendar?days=5", token: alice).json(HeatmapCalendar.self)
            #expect(mine == HeatmapCalendar(from: "2026-03-10", to: "2026-03-14", days: [1, 1, 0, 0, 1]))

            for query in ["days=0", "days=367", "days=x"] {
                #expect(try await client.get("/v1/streaks/calendar?\(query)", token: alice).status == .badRequest)
            }
            let carol = try await harness.token(for: Self.carol)
            #expect(try await client.get("/v1/streaks/\(id)/calendar", token: carol).status == .notFound)
        }
    }
}
