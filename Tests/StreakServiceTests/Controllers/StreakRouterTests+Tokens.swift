import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import StreakService

/// Recovery tokens: earned at every 30 days, Pro's monthly three, and the transaction history.
extension StreakRouterTests {
    @Test func thirtyDaysEarnBothATokenThatARecoverySpends() async throws {
        try await withStreak(at: Self.instant("2026-03-01T10:00:00Z")) { harness, client, runner in
            let id = try await befriend(harness, client, Self.alice, Self.bob).id
            for day in 0..<30 {
                _ = try await snap(harness, client, Self.alice, day: day, zone: "UTC")
                _ = try await snap(harness, client, Self.bob, day: day, zone: "UTC")
                if day == 28 {
                    #expect(try await tokens(harness, client, Self.bob).balance == 0)
                }
                harness.clock.advance(by: 86_400)
            }
            for user in [Self.alice, Self.bob] {
                let balance = try await tokens(harness, client, user)
                #expect(balance.balance == 1)
                #expect(
                    balance.transactions == [
                        RecoveryTransaction(
                            type: .earned, amount: 1, balanceAfter: 1, streakId: id,
                            createdAt: Self.instant("2026-03-30T10:00:00Z"))
                    ])
            }
            // 31 March passes unsnapped: broken on 1 April; Bob spends his token on it.
            harness.clock.set(Self.instant("2026-04-01T10:00:00Z"))
            await runner.runDue()
            let bob = try await harness.token(for: Self.bob)
            let recovered = try await client.request(.post, "/v1/streaks/\(id)/recover", token: bob).json(Streak.self)
            #expect(recovered.count == 30)
            let after = try await tokens(harness, client, Self.bob)
            #expect(after.balance == 0)
            #expect(after.transactions.map(\.type) == [.used, .earned])
            #expect(after.transactions.map(\.balanceAfter) == [0, 1])
            #expect(try await tokens(harness, client, Self.alice).balance == 1)
        }
    }

    @Test func proCollectsThreeTokensEachCalendarMonthOnce() async throws {
        let sessions = Lookup<SessionState> { id in
            SessionState(sessionId: id, userId: id, limited: false, roles: [], premium: id == Self.alice)
        }
        try await withStreak(at: Self.instant("2026-03-30T10:00:00Z"), sessions: sessions) { harness, client, _ in
            func balance(_ user: String) async throws -> RecoveryTokenBalance {
                try await client.get("/v1/recovery-tokens", token: try await harness.token(for: user, session: user))
                    .json(RecoveryTokenBalance.self)
            }
            #expect(try await balance(Self.alice).balance == 3)
            #expect(try await balance(Self.alice).transactions.map(\.type) == [.monthly])
            #expect(try await balance(Self.bob).balance == 0)
            harness.clock.set(Self.instant("2026-04-01T00:00:01Z"))
            let april = try await balance(Self.alice)
            #expect(april.balance == 6)
            #expect(april.transactions.map(\.balanceAfter) == [6, 3])
        }
    }

    func tokens(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, _ user: String
    ) async throws -> RecoveryTokenBalance {
        try await client.get("/v1/recovery-tokens", token: try await harness.token(for: user))
            .json(RecoveryTokenBalance.self)
    }
}
