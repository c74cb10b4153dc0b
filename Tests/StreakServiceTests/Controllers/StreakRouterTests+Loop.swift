import Contracts
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import StreakService

/// Stands in for media's card renderer: keeps each request and answers a card for it.
actor ShareCardDesk {
    private(set) var requests: [ShareCardRender] = []

    func render(_ card: ShareCardRender) -> ShareCard {
        requests.append(card)
        return ShareCard(
            mediaId: "40000000-0000-4000-8000-\(String(format: "%012d", requests.count))", style: card.style,
            count: card.count, width: 1080, height: 1920, url: "/v1/media/card",
            expiresAt: Date(timeIntervalSince1970: 0))
    }
}

/// The daily loop around the snap: windows, prompts, milestones and the profile's stats.
extension StreakRouterTests {
    func window(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, _ user: String
    ) async throws -> SnapWindow {
        try await client.get("/v1/snaps/window", token: try await harness.token(for: user)).json(SnapWindow.self)
    }

    @Test func aSnapIsAcceptedOnlyInItsSendersDrawnWindowOrItsGrace() async throws {
        try await withStreak(at: Self.instant("2026-03-10T00:05:00Z"), windows: true) { harness, client, _ in
            let alice = try await harness.token(for: Self.alice)
            let drawn = try await client.send(
                .put, "/v1/snaps/window", SnapWindowSettings(earliestHour: 21, timeZone: "UTC"), token: alice
            ).json(SnapWindow.self)
            _ = try await befriend(harness, client, Self.alice, Self.bob)
            #expect(drawn.date == "2026-03-10")
            #expect(drawn.earliestHour == 21 && drawn.enforced && !drawn.acceptingSnaps && !drawn.open)
            #expect(drawn.opensAt >= Self.instant("2026-03-10T21:00:00Z"))
            #expect(drawn.opensAt <= Self.instant("2026-03-10T21:30:00Z"))
            #expect(drawn.closesAt == drawn.opensAt.addingTimeInterval(7200))

            let early = try await snap(harness, client, Self.alice, day: 0, zone: "UTC")
            #expect(early.status == .forbidden)
            #expect(early.error?.code == .outsideSnapWindow)
            // A refused snap leaves the window as drawn, and new settings wait for the next day.
            #expect(try await window(harness, client, Self.alice) == drawn)
            _ = try await client.send(.put, "/v1/snaps/window", SnapWindowSettings(earliestHour: 10), token: alice)
            #expect(try await window(harness, client, Self.alice).opensAt == drawn.opensAt)

            harness.clock.set(drawn.opensAt.addingTimeInterval(-31 * 60))
            #expect(try await snap(harness, client, Self.alice, day: 0, zone: "UTC").status == .forbidden)
            harness.clock.advance(by: 2 * 60)
            #expect(try await window(harness, client, Self.alice).acceptingSnaps)
            #expect(try await snap(harness, client, Self.alice, day: 0, zone: "UTC").status == .created)
            // Bob's own window is his: drawn from the default earliest hour, 10:00.
            let bobs = try await window(harness, client, Self.bob)
            #expect(bobs.earliestHour == 10 && bobs.opensAt >= Self.instant("2026-03-10T10:00:00Z"))

            let bad = try await client.send(
                .put, "/v1/snaps/window", SnapWindowSettings(earliestHour: 24),
                token: try await harness.token(for: Self.alice))
            #expect(bad.error?.code == .validationFailed)
        }
    }

    /// StreakSnap: a new user whose friend accepted before they chose their window had their
    /// first window drawn in UTC; choosing a zone draws today's again in it.
    @Test func aFirstWindowDrawnInUTCIsDrawnAgainInTheZoneTheUserChooses() async throws {
        // 00:05 UTC is 09:05 in Tokyo: the same date in both.
        try await withStreak(at: Self.instant("2026-03-10T00:05:00Z"), windows: true) { harness, client, _ in
            _ = try await befriend(harness, client, Self.alice, Self.bob)
            let alice = try await harness.token(for: Self.alice)
            let first = try await window(harness, client, Self.alice)
            #expect(first.timeZone == "UTC" && first.date == "2026-03-10")
            let chosen = try await client.send(
                .put, "/v1/snaps/window", SnapWindowSettings(earliestHour: 12, timeZone: "Asia/Tokyo"), token: alice
            ).json(SnapWindow.self)
            #expect(chosen.timeZone == "Asia/Tokyo" && chosen.date == "2026-03-10" && chosen.earliestHour == 12)
            // Noon to 23:30 in Tokyo (03:00 to 14:30 UTC).
            #expect(chosen.opensAt >= Self.instant("2026-03-10T03:00:00Z"))
            #expect(chosen.opensAt <= Self.instant("2026-03-10T14:30:00Z"))
            #expect(try await window(harness, client, Self.alice) == chosen)
            // Once drawn in the user's zone, the day keeps its window whatever they set next.
            let later = try await client.send(
                .put, "/v1/snaps/window", SnapWindowSettings(earliestHour: 20, timeZone: "Asia/Tokyo"), token: alice
            ).json(SnapWindow.self)
            #expect(later.opensAt == chosen.opensAt)
        }
    }

    @Test func theWindowJobAnnouncesTheWindowAndItsCloseUnlessTheUserSnapped() async throws {
        try await withStreak(at: Self.instant("2026-03-10T00:05:00Z")) { harness, client, runner in
            _ = try await befriend(harness, client, Self.alice, Self.bob)
            #expect(try await snap(harness, client, Self.bob, day: 0, zone: "UTC").status == .created)
            let windows = [
                Self.alice: try await window(harness, client, Self.alice),
                Self.bob: try await window(harness, client, Self.bob),
            ]
            let prompt = try await client.get("/v1/prompts/today", token: try await harness.token(for: Self.alice))
                .json(DailyPrompt.self)
            // Every moment of both windows, in order; the job runs at each.
            let moments = windows.values.flatMap { [$0.opensAt, $0.closesAt.addingTimeInterval(-1800)] }.sorted()
            for moment in moments {
                harness.clock.set(moment)
                await runner.runDue()
            }
            let aliceWindow = try #require(windows[Self.alice])
            #expect(
                try harness.outboxEvents(StreakWindowOpened.self) == [
                    StreakWindowOpened(
                        userId: Self.alice, date: "2026-03-10", closesAt: aliceWindow.closesAt, prompt: prompt.text,
                        partner: "Bob")
                ])
            #expect(
                try harness.outboxEvents(StreakWindowClosing.self) == [
                    StreakWindowClosing(userId: Self.alice, date: "2026-03-10", closesAt: aliceWindow.closesAt)
                ])
            // Next: tomorrow's window, drawn already.
            let due = try await harness.database().read { db in
                try Date.fetchAll(db, sql: "SELECT due_at FROM kit_job WHERE kind = 'streak.window' ORDER BY key")
            }
            #expect(due.count == 2)
            #expect(
                due.allSatisfy {
                    $0 >= Self.instant("2026-03-11T10:00:00Z") && $0 <= Self.instant("2026-03-11T21:30:00Z")
                })
        }
    }

    @Test func thePromptIsTheSameForEveryoneOnALocalDayAndProUsersSetTheirOwn() async throws {
        // Sessions named `pro/<user>` are premium, `free/<user>` are not.
        let sessions = Lookup<SessionState> { id in
            let parts = id.split(separator: "/").map(String.init)
            return SessionState(sessionId: id, userId: parts[1], limited: false, roles: [], premium: parts[0] == "pro")
        }
        // 10:00 UTC: already the 11th in Kiritimati (UTC+14), still the 10th in Honolulu and London.
        try await withStreak(at: Self.instant("2026-03-10T10:30:00Z"), sessions: sessions) { harness, client, _ in
            let pro = try await harness.token(for: Self.alice, session: "pro/\(Self.alice)")
            let free = try await harness.token(for: Self.bob, session: "free/\(Self.bob)")
            func today(_ zone: String, _ token: String) async throws -> DailyPrompt {
                try await client.get("/v1/prompts/today?timeZone=\(zone)", token: token).json(DailyPrompt.self)
            }
            let london = try await today("Europe/London", free)
            let honolulu = try await today("Pacific/Honolulu", free)
            let kiritimati = try await today("Pacific/Kiritimati", free)
            #expect(london == honolulu && london.date == "2026-03-10" && !london.custom)
            #expect(kiritimati.date == "2026-03-11" && kiritimati.text != london.text)
            #expect(kiritimati.category != london.category)

            let refused = try await client.send(
                .put,
                "/v1/prompts/custom/2026-03-10", CustomPromptSet(text: "Your shoes"), token: free)
            #expect(refused.status.code == 402 && refused.error?.code == .premiumRequired)
            // A request that is wrong anyway says what is wrong before it asks for Pro.
            let wrongAnyway = try await client.send(
                .put, "/v1/prompts/custom/not-a-date", CustomPromptSet(text: "Your shoes"), token: free)
            #expect(wrongAnyway.error?.code == .validationFailed)
            let own = try await client.send(
                .put,
                "/v1/prompts/custom/2026-03-10", CustomPromptSet(text: "  Your shoes  ", emoji: "👟"), token: pro
            ).json(DailyPrompt.self)
            #expect(
                own == DailyPrompt(date: "2026-03-10", text: "Your shoes", category: "custom", emoji: "👟", custom: true)
            )
            #expect(try await today("UTC", pro) == own)
            #expect(try await today("UTC", free) == london)
            #expect(
                try await client.get("/v1/prompts/custom", token: pro).json(Page<DailyPrompt>.self).items == [own])
            for (date, text) in [("2026-03-01", "Too late"), ("2027-03-11", "Too early"), ("2026-3-12", "Odd")] {
                let answer = try await client.send(
                    .put, "/v1/prompts/custom/\(date)", CustomPromptSet(text: text), token: pro)
                #expect(answer.error?.code == .validationFailed, "\(date)")
            }
            let long = String(repeating: "x", count: 101)
            #expect(
                try await client.send(.put, "/v1/prompts/custom/2026-03-12", CustomPromptSet(text: long), token: pro)
                    .error?.code == .validationFailed)
            #expect(try await client.request(.delete, "/v1/prompts/custom/2026-03-10", token: pro).status == .noContent)
            #expect(try await client.request(.delete, "/v1/prompts/custom/2026-03-10", token: pro).status == .notFound)
            #expect(try await today("UTC", pro) == london)
            #expect(try await client.get("/v1/prompts/today?timeZone=Mars/Base", token: pro).status == .badRequest)
        }
    }

    @Test func milestonesAreRecordedOnceAndTheStatsCountTheProfile() async throws {
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z")) { harness, client, runner in
            let id = try await befriend(harness, client, Self.alice, Self.bob).id
            for day in 0..<8 {
                for user in [Self.alice, Self.bob] {
                    #expect(try await snap(harness, client, user, day: day, zone: "UTC").status == .created)
                }
                harness.clock.advance(by: 86_400)
                await runner.runDue()
            }
            #expect(
                try harness.outboxEvents(StreakMilestoneReached.self) == [
                    StreakMilestoneReached(
                        streakId: id, count: 7, date: "2026-03-16",
                        members: [
                            StreakMember(userId: Self.alice, displayName: "Alice"),
                            StreakMember(userId: Self.bob, displayName: "Bob"),
                        ].sorted { $0.userId < $1.userId }, earnedToken: false)
                ])
            let bob = try await harness.token(for: Self.bob)
            let data = try await client.get("/v1/streaks/\(id)/milestone-data", token: bob).json(MilestoneData.self)
            #expect(data.count == 8 && data.longestCount == 8 && data.startedOn == "2026-03-10")
            #expect(data.members.map(\.userId) == [Self.bob, Self.alice])
            #expect(data.reached.map(\.count) == [7] && data.reached.first?.date == "2026-03-16")
            #expect(data.next == 14 && data.daysToNext == 6)
            let carol = try await harness.token(for: Self.carol)
            #expect(try await client.get("/v1/streaks/\(id)/milestone-data", token: carol).status == .notFound)

            let stats = try await client.get("/v1/streaks/stats", token: bob).json(StreakStats.self)
            #expect(stats.activeStreaks == 1 && stats.longestStreak == 8 && stats.totalSnaps == 8)
            #expect(stats.recoveryTokens == 0)
            #expect(
                stats.achievements.map(\.id)
                    == Milestones.achievements(longest: 0, recoveries: 0, promptSnaps: 0).map(\.id))
            #expect(stats.achievements.filter(\.unlocked).map(\.id) == ["7_day_warrior"])
            #expect(stats.achievements.first { $0.id == "30_day_legend" }?.progress == 8)
            let fresh = try await client.get("/v1/streaks/stats", token: carol).json(StreakStats.self)
            #expect(fresh.activeStreaks == 0 && fresh.totalSnaps == 0 && fresh.achievements.allSatisfy { !$0.unlocked })
        }
    }

    @Test func aShareCardIsDrawnForAPartnerOfAStreakWithDaysKept() async throws {
        let cards = ShareCardDesk()
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z"), cards: cards) { harness, client, runner in
            let id = try await befriend(harness, client, Self.alice, Self.bob).id
            let bob = try await harness.token(for: Self.bob)
            let early = try await client.post("/v1/streaks/\(id)/share-card", ShareCardCreate(), token: bob)
            #expect(early.status == .conflict && early.error?.code == .conflict)
            for user in [Self.alice, Self.bob] {
                #expect(try await snap(harness, client, user, day: 0, zone: "UTC").status == .created)
            }
            harness.clock.advance(by: 86_400)
            await runner.runDue()

            let fresh = try await harness.token(for: Self.bob)
            let made = try await client.post(
                "/v1/streaks/\(id)/share-card", ShareCardCreate(style: .purple), token: fresh)
            #expect(made.status == .created)
            let card = try made.json(ShareCard.self)
            #expect(card.style == .purple)
            let plain = try await client.post("/v1/streaks/\(id)/share-card", ShareCardCreate(), token: fresh)
            #expect(try plain.json(ShareCard.self).style == .orange)
            let carol = try await harness.token(for: Self.carol)
            let stranger = try await client.post("/v1/streaks/\(id)/share-card", ShareCardCreate(), token: carol)
            #expect(stranger.status == .notFound)
            let unknown = try await client.send(
                .post, "/v1/streaks/\(id)/share-card", ["style": "neon"], token: fresh)
            #expect(unknown.status == .badRequest)

            // Shared on Instagram, then TikTok: the latest platform and time are kept.
            let cardID = try #require(card.id)
            let shared = try await client.send(
                .put, "/v1/share-cards/\(cardID)/shared", ShareCardShared(platform: .instagram), token: fresh)
            #expect(shared.status == .ok)
            #expect(
                try shared.json(ShareCardShare.self)
                    == ShareCardShare(
                        id: cardID, streakId: id, mediaId: card.mediaId, style: .purple, count: 1,
                        platform: .instagram, sharedAt: harness.clock.now(), createdAt: harness.clock.now()))
            harness.clock.advance(by: 60)
            let again = try await client.send(
                .put, "/v1/share-cards/\(cardID)/shared", ShareCardShared(platform: .tiktok), token: fresh)
            let latest = try again.json(ShareCardShare.self)
            #expect(latest.platform == .tiktok && latest.sharedAt == harness.clock.now())
            // Alice's, Carol's or nobody's card: 404; a platform the seed does not name: 400.
            let alice = try await harness.token(for: Self.alice)
            for (token, path) in [
                (alice, "/v1/share-cards/\(cardID)/shared"), (carol, "/v1/share-cards/\(cardID)/shared"),
                (fresh, "/v1/share-cards/\(UUID().uuidString.lowercased())/shared"),
                (fresh, "/v1/share-cards/not-an-id/shared"),
            ] {
                let refused = try await client.send(.put, path, ShareCardShared(platform: .general), token: token)
                #expect(refused.status == .notFound && refused.error?.code == .notFound, "\(path)")
            }
            let facebook = try await client.send(
                .put, "/v1/share-cards/\(cardID)/shared", ["platform": "facebook"], token: fresh)
            #expect(facebook.status == .badRequest && facebook.error?.code == .malformedRequest)
            #expect(
                await cards.requests == [
                    ShareCardRender(
                        ownerId: Self.bob, style: .purple, count: 1, names: ["Bob", "Alice"], since: "2026-03-10",
                        watermark: "StreakSnap"),
                    ShareCardRender(
                        ownerId: Self.bob, style: .orange, count: 1, names: ["Bob", "Alice"], since: "2026-03-10",
                        watermark: "StreakSnap"),
                ])
        }
    }
}
