import Foundation
import ServiceHTTP
import TestSupport
import Testing

/// Two weeks of StreakSnap against the real executables, their wall clocks moved with Debian's
/// libfaketime (``Stack/moveClock(to:)``), never through a route of the product. Mia (Tokyo)
/// and Noah (London) snap every day for a week; the seventh day is a milestone whose share card
/// downloads as a 1080×1920 PNG. On the eighth Noah forgets: at-risk, then broken, reach both
/// in the notification centre and as pushes at the fake APNs. Noah buys a pack of recovery
/// tokens (RevenueCat's webhook), recovers once, and the two keep going to day fourteen. At
/// 07:30 UTC the next day, Lea and Kim in Los Angeles live the day before UTC's.
struct StreakStoryFlow {
    let flow: SliceFlow
    let fake: FakePushProviders
    var stack: Stack { flow.stack }
    static let webhookSecret = "stack-revenuecat-secret"

    /// A signed-in user whose access token is renewed with the refresh token after each move of
    /// the clock (access tokens live fifteen minutes; the same session keeps its device).
    final class Account: @unchecked Sendable {
        let name: String
        let id: String
        let zone: String
        let device: String
        var token: String
        var refreshToken: String
        var person: Person { Person(name: name, id: id, token: token) }

        init(name: String, id: String, zone: String, device: String, tokens: TokenResponse) {
            (self.name, self.id, self.zone, self.device) = (name, id, zone, device)
            token = tokens.accessToken
            refreshToken = tokens.refreshToken
        }
    }

    func signUp(_ name: String, zone: String, device: String) async throws -> Account {
        let email = "\(name.lowercased())@example.com"
        let password = "correct horse battery \(name)"
        let registered = try await flow.call(
            .POST, "/v1/auth/register", json: RegisterRequest(email: email, password: password, displayName: name))
        #expect(registered.status == 202)
        let login = try await flow.call(.POST, "/v1/auth/login", json: LoginRequest(email: email, password: password))
        let tokens = try login.decode(TokenResponse.self)
        let me = try await flow.call(.GET, "/v1/me", as: Person(name: name, id: "", token: tokens.accessToken))
        let account = Account(
            name: name, id: try me.decode(UserProfile.self).id, zone: zone, device: device, tokens: tokens)
        let registration = DeviceRegistration(
            provider: .apns, token: device, bundleId: "com.example.streaksnap", environment: .production)
        let answer = try await flow.call(.POST, "/v1/devices", as: account.person, json: registration)
        #expect(answer.status == 201, "\(answer.text)")
        return account
    }

    func refresh(_ account: Account) async throws {
        let answer = try await flow.call(
            .POST, "/v1/auth/refresh", json: RefreshRequest(refreshToken: account.refreshToken))
        #expect(answer.status == 200, "\(answer.text)")
        let tokens = try answer.decode(TokenResponse.self)
        account.token = tokens.accessToken
        account.refreshToken = tokens.refreshToken
    }

    /// Moves every executable's clock, then renews both accounts' access tokens.
    func move(to date: Date, _ accounts: [Account]) async throws {
        try await stack.moveClock(to: date)
        fake.moveClock(to: date)
        for account in accounts { try await refresh(account) }
    }

    func snap(_ account: Account, day: Int) async throws -> Snap {
        let photo = try await flow.upload(
            TestImages.jpeg(seed: UInt8(day * 2 + (account.name == "Mia" ? 0 : 1))), as: account.person)
        let answer = try await flow.call(
            .POST, "/v1/snaps", as: account.person, json: SnapCreate(mediaId: photo.id, timeZone: account.zone))
        #expect(answer.status == 201, "day \(day): \(answer.text)")
        return try answer.decode(Snap.self)
    }

    func streak(_ id: String, as account: Account) async throws -> Streak {
        try await flow.call(.GET, "/v1/streaks/\(id)", as: account.person).decode(Streak.self)
    }

    /// Whether `account` has a notification of `type` in the centre and a push of it at the
    /// fake APNs (on its own device).
    func heard(_ type: NotificationType, _ account: Account) async throws -> Bool {
        try await flow.eventually {
            let pushed = fake.pushes.contains {
                $0.token == account.device && $0.body["type"] as? String == type.rawValue
            }
            guard pushed else { return false }
            return try await flow.notifications(of: account.person).contains { $0.type == type }
        }
    }

    func run() async throws {
        // Day 1 is tomorrow (UTC) on this machine's calendar; everything happens at fixed
        // hours of it. Tokyo has no daylight saving; London's does not matter to the hours used.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let start = calendar.startOfDay(for: Date()).addingTimeInterval(86_400)
        func at(day: Int, hour: Double) -> Date { start.addingTimeInterval(Double(day - 1) * 86_400 + hour * 3600) }

        try await stack.moveClock(to: at(day: 1, hour: 11))
        fake.moveClock(to: at(day: 1, hour: 11))
        let mia = try await signUp("Mia", zone: "Asia/Tokyo", device: String(repeating: "a1", count: 32))
        let noah = try await signUp("Noah", zone: "Europe/London", device: String(repeating: "b2", count: 32))
        let both = [mia, noah]
        let id = try await flow.befriend(mia.person, noah.person).id

        // A week of snaps at noon UTC (21:00 in Tokyo, noon in London: the same date for both).
        for day in 1...7 {
            try await move(to: at(day: day, hour: 12), both)
            _ = try await snap(mia, day: day)
            let second = try await snap(noah, day: day)
            #expect(second.streaks.first { $0.id == id }?.count == day, "day \(day)")
        }
        // StreakSnap's home screen draws from the streak feed alone: Noah's name on the row and,
        // both having snapped today, his photo revealed with a URL that needs no token.
        // (Media describes the photo to streak by event: it may land a moment after the snap.)
        var row: StreakFeedItem?
        #expect(
            try await flow.eventually {
                row = try await flow.call(.GET, "/v1/streaks/feed", as: mia.person).decode(Page<StreakFeedItem>.self)
                    .items.first { $0.streak.id == id }
                return row?.today.friend?.media?.thumbnailURL != nil
            }, "Noah's photo never showed on Mia's home screen: \(String(describing: row))")
        #expect(row?.streak.friend?.displayName == "Noah" && row?.today.friendState == .revealed)
        let revealed = try #require(row?.today.friend?.media)
        #expect(revealed.id == row?.today.friend?.mediaId && revealed.placeholder != nil)
        #expect(try await flow.call(.GET, try #require(revealed.thumbnailURL)).status == 200)
        #expect(try await heard(.streakMilestone, mia))
        #expect(try await heard(.streakMilestone, noah))
        // Her profile shows her streak numbers (streak → auth).
        #expect(
            await flow.eventually {
                let profile = try? await flow.call(.GET, "/v1/users/\(mia.person.id)", as: noah.person)
                    .decode(PublicProfile.self)
                return profile?.stats.streak == StreakProfileStats(activeStreaks: 1, longestStreak: 7, totalSnaps: 7)
            }, "Mia's profile never showed her streak")
        let card = try await flow.call(
            .POST, "/v1/streaks/\(id)/share-card", as: mia.person, json: ShareCardCreate(style: .dark))
        #expect(card.status == 201, "\(card.text)")
        let image = try await flow.call(.GET, try card.decode(ShareCard.self).url)
        let size = try #require(TestImages.pngSize(image.body))
        #expect(image.status == 200 && size.width == 1080 && size.height == 1920)
        // She posts it to her story; the app tells streak (the seed's share analytics).
        let cardID = try #require(try card.decode(ShareCard.self).id)
        let shared = try await flow.call(
            .PUT, "/v1/share-cards/\(cardID)/shared", as: mia.person, json: ShareCardShared(platform: .instagram))
        #expect(shared.status == 200, "\(shared.text)")
        #expect(try shared.decode(ShareCardShare.self).platform == .instagram)

        // Day 8: only Mia snaps. Her day ends first (15:00 UTC): at 13:30 UTC it is at risk.
        try await move(to: at(day: 8, hour: 12), both)
        _ = try await snap(mia, day: 8)
        try await move(to: at(day: 8, hour: 13.5), both)
        #expect(try await heard(.streakAtRisk, mia))
        #expect(try await heard(.streakAtRisk, noah))
        #expect(try await streak(id, as: noah).atRisk)
        // Just after London's midnight the day has closed incomplete: broken, for both.
        try await move(to: at(day: 9, hour: 0.5), both)
        #expect(try await heard(.streakBroken, mia))
        #expect(try await heard(.streakBroken, noah))
        let broken = try await streak(id, as: mia)
        #expect(broken.status == .broken && broken.count == 0 && broken.longestCount == 7)

        // Noah buys three recovery tokens; one brings the streak back, once.
        let purchase = RevenueCatWebhook(
            event: RevenueCatEvent(
                id: "story-pack-\(noah.id)", type: "NON_RENEWING_PURCHASE", appUserId: noah.id,
                productId: "recovery_token_pack_3"))
        let bought = try await flow.call(
            .POST, "/v1/webhooks/revenuecat", json: purchase,
            headers: [("authorization", "Bearer \(Self.webhookSecret)")])
        #expect(bought.status == 200, "\(bought.text)")
        #expect(
            try await flow.eventually {
                try await flow.call(.GET, "/v1/recovery-tokens", as: noah.person).decode(RecoveryTokenBalance.self)
                    .balance == 3
            })
        let recovered = try await flow.call(.POST, "/v1/streaks/\(id)/recover", as: noah.person)
        #expect(recovered.status == 200, "\(recovered.text)")
        #expect(try recovered.decode(Streak.self).count == 7)
        let again = try await flow.call(.POST, "/v1/streaks/\(id)/recover", as: mia.person)
        #expect(again.status == 409 && again.errorCode == .recoveryUnavailable)

        // The second week: the count goes on from the restored seven.
        for day in 9...14 {
            try await move(to: at(day: day, hour: 12), both)
            _ = try await snap(noah, day: day)
            let second = try await snap(mia, day: day)
            #expect(second.streaks.first { $0.id == id }?.count == day - 1, "day \(day)")
        }
        let final = try await streak(id, as: noah)
        #expect(final.status == .active && final.count == 13 && final.longestCount == 13 && final.recoveryUsed)
        let tokens = try await flow.call(.GET, "/v1/recovery-tokens", as: noah.person).decode(RecoveryTokenBalance.self)
        #expect(tokens.balance == 2 && tokens.transactions.first?.type == .used)

        try await behindUTC(at: at(day: 15, hour: 7.5))
    }

    /// StreakSnap, "when a user's local date is behind UTC's": at 07:30 UTC it is still the day
    /// before in Los Angeles. Lea and Kim, who set their zone there, see that day's window,
    /// prompt and calendar, keep it together, and a phone moved to Kiritimati (the next day
    /// there already) banks no other day.
    func behindUTC(at moment: Date) async throws {
        try await stack.moveClock(to: moment)
        fake.moveClock(to: moment)
        let zone = "America/Los_Angeles"
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        let parts = calendar.dateComponents([.year, .month, .day], from: moment)
        let local = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        let lea = try await signUp("Lea", zone: zone, device: String(repeating: "c3", count: 32))
        let kim = try await signUp("Kim", zone: zone, device: String(repeating: "d4", count: 32))
        for account in [lea, kim] {
            let window = try await flow.call(
                .PUT, "/v1/snaps/window", as: account.person, json: SnapWindowSettings(earliestHour: 10, timeZone: zone)
            )
            #expect(try window.decode(SnapWindow.self).date == local, "\(window.text)")
            let prompt = try await flow.call(.GET, "/v1/prompts/today", as: account.person)
            #expect(try prompt.decode(DailyPrompt.self).date == local, "\(prompt.text)")
        }
        let id = try await flow.befriend(lea.person, kim.person).id
        let leas = try await snap(lea, day: 15)
        #expect(leas.localDate == local)
        let kept = try await snap(kim, day: 15)
        #expect(kept.localDate == local && kept.streaks.first { $0.id == id }?.count == 1)
        // Kim's friend feed shows Lea's latest snap, of their own day, with its photo.
        let card = try await flow.call(.GET, "/v1/streaks/feed", as: kim.person).decode(Page<StreakFeedItem>.self)
            .items.first { $0.streak.id == id }?.today
        #expect(card?.date == local && card?.friend?.id == leas.id && card?.friend?.media?.displayURL != nil)
        let heatmap = try await flow.call(.GET, "/v1/streaks/calendar", as: lea.person).decode(HeatmapCalendar.self)
        #expect(heatmap.to == local && heatmap.days.last == 1, "\(heatmap)")

        // Lea's phone moves to Kiritimati: her day there has begun, but not where hers counts.
        let photo = try await flow.upload(TestImages.jpeg(seed: 99), as: lea.person)
        let moved = try await flow.call(
            .POST, "/v1/snaps", as: lea.person, json: SnapCreate(mediaId: photo.id, timeZone: "Pacific/Kiritimati"))
        #expect(moved.status == 409, "\(moved.text)")
        let standing = try await streak(id, as: kim)
        #expect(standing.count == 1 && standing.lastCompletedDate == local)
    }
}
