import Foundation
import GRDB
import HummingbirdTesting
import ServiceKit
import TestSupport
import Testing

@testable import AuthService

/// What moderators' actions do at auth: a suspension reaches every service through the session
/// state; a ban ends the sessions and refuses sign-in with the reason; a reversal lifts only its
/// own action's restriction.
@Suite struct RestrictionTests {
    @Test func aBanEndsSessionsAndRefusesSignInWithItsReasonUntilItIsReversed() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        let clock = ManualClock(Date())
        try await withAuth(clock: clock, config: fastHashing, directory: directory) { client in
            let tokens = try await client.signUp("sol@example.com")
            let user = try await client.userID(of: tokens)
            let database = try directory.authDatabase()
            let (suspension, ban) = ("ac700000-0000-4000-8000-000000000001", "ac700000-0000-4000-8000-000000000002")
            let until = clock.now().addingTimeInterval(3600)
            let outbox = Outbox(source: .auth, clock: clock, entropy: SystemEntropy())
            try await database.write { db in
                try RestrictionStore.suspended(
                    UserSuspended(userId: user, actionId: suspension, until: until, reason: "Threats"), in: db)
            }
            let suspendedUntil = try await database.read { db in
                try Date.fetchOne(
                    db, sql: "SELECT suspended_until FROM account_restriction WHERE user_id = ?", arguments: [user])
            }
            #expect(suspendedUntil.map(JSONCoding.milliseconds) == JSONCoding.milliseconds(until))

            try await database.write { db in
                try RestrictionStore.banned(
                    UserBanned(userId: user, actionId: ban, reason: "Repeated threats"), at: clock.now(),
                    outbox: outbox,
                    in: db)
            }
            #expect(try await client.get("/v1/me", token: tokens.accessToken).status == .unauthorized)
            let refused = try await client.post(
                "/v1/auth/login", LoginRequest(email: "sol@example.com", password: "correct horse battery"))
            #expect(refused.status == .forbidden && refused.error?.code == .accountBanned)
            #expect(refused.error?.message == "This account was banned by a moderator: Repeated threats.")

            // Reversing the suspension leaves the ban; reversing the ban lets Sol in again.
            try await database.write { db in
                try RestrictionStore.reinstated(UserReinstated(userId: user, actionId: suspension), in: db)
            }
            let stillBanned = try await client.post(
                "/v1/auth/login", LoginRequest(email: "sol@example.com", password: "correct horse battery"))
            #expect(stillBanned.error?.code == .accountBanned)
            try await database.write { db in
                try RestrictionStore.reinstated(UserReinstated(userId: user, actionId: ban), in: db)
            }
            let back = try await client.post(
                "/v1/auth/login", LoginRequest(email: "sol@example.com", password: "correct horse battery"))
            #expect(back.status == .ok)
        }
    }
}
