import Foundation
import GRDB
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import Synchronization
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

    /// Moderation as the ban-appeal route sees it: it records each appeal and takes one per action.
    final class Moderation: Sendable {
        let appeals = Mutex<[BanAppeal]>([])

        func take(_ appeal: BanAppeal) throws -> Appeal {
            try appeals.withLock { appeals in
                guard !appeals.contains(where: { $0.actionId == appeal.actionId }) else {
                    throw ServiceError(.conflict, "You have already appealed this action.")
                }
                appeals.append(appeal)
                return Appeal(
                    id: "a9900000-0000-4000-8000-00000000000\(appeals.count)", actionId: appeal.actionId,
                    userId: appeal.userId, statement: appeal.statement, status: .pending, decidedBy: nil,
                    decisionReason: nil, createdAt: Date(), decidedAt: nil)
            }
        }
    }

    @Test func aBannedUserAppealsWithTheirPasswordOnceAndNobodyElseCan() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        let clock = ManualClock(Date())
        let moderation = Moderation()
        try await withAuth(
            clock: clock, config: fastHashing, directory: directory, banAppeals: { try moderation.take($0) }
        ) { client in
            let tokens = try await client.signUp("kai@example.com")
            let user = try await client.userID(of: tokens)
            let appeal = BanAppealRequest(
                email: "kai@example.com", password: "correct horse battery", statement: "It was a joke between friends."
            )

            // Not banned: sign in and appeal from the app.
            let notBanned = try await client.post("/v1/auth/ban-appeal", appeal)
            #expect(notBanned.status == .conflict && notBanned.error?.code == .conflict)

            let ban = "ac700000-0000-4000-8000-000000000003"
            try await directory.authDatabase().write { db in
                try RestrictionStore.banned(
                    UserBanned(userId: user, actionId: ban, reason: "Threats"), at: clock.now(),
                    outbox: Outbox(source: .auth, clock: clock, entropy: SystemEntropy()), in: db)
            }
            // The wrong password, or an address nobody has, is the sign-in's 401, and nothing reaches moderation.
            var wrong = appeal
            wrong.password = "wrong horse battery"
            let refused = try await client.post("/v1/auth/ban-appeal", wrong)
            #expect(refused.status == .unauthorized && refused.error?.code == .invalidCredentials)
            wrong = appeal
            wrong.email = "nobody@example.com"
            #expect(try await client.post("/v1/auth/ban-appeal", wrong).error?.code == .invalidCredentials)
            #expect(moderation.appeals.withLock { $0.isEmpty })

            let made = try await client.post("/v1/auth/ban-appeal", appeal)
            #expect(made.status == .created)
            let answer = try made.json(Appeal.self)
            #expect(answer.actionId == ban && answer.userId == user && answer.status == .pending)
            #expect(
                moderation.appeals.withLock { $0 } == [
                    BanAppeal(userId: user, actionId: ban, statement: appeal.statement)
                ])

            // Moderation's refusal of a second appeal reaches the user as moderation said it.
            let again = try await client.post("/v1/auth/ban-appeal", appeal)
            #expect(again.status == .conflict && again.error?.message == "You have already appealed this action.")
        }
    }
}
