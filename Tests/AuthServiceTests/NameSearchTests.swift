import Contracts
import Foundation
import GRDB
import ServiceKit
import TestSupport
import Testing

@testable import AuthService

/// Friend search's rules (the route itself is replayed in ContractTests' `user-search`).
@Suite struct NameSearchTests {
    @Test func aNameIsSearchedByItsWordsWithoutCaseAccentsOrRepeats() {
        #expect(NameSearch.words(of: "Zoë  Ångström-zoë") == ["zoe", "angstrom"])
        #expect(NameSearch.words(of: "ＡＢＣ") == ["abc"])
        #expect(NameSearch.matches("Zoë Ångström", ["ang", "zo"]))
        #expect(!NameSearch.matches("Zoë Ångström", ["ang", "x"]))
    }

    @Test func aQueryIsAWholeEmailOrWordsAndTooShortIsRefused() throws {
        #expect(try NameSearch.query("  Bob@Example.COM ") == .email("bob@example.com"))
        #expect(try NameSearch.query("Álv Ali") == .words(["alv", "ali"]))
        for bad in [nil, "", "a", " b ", "--", String(repeating: "x", count: 101)] {
            let error = #expect(throws: ServiceError.self) { try NameSearch.query(bad) }
            #expect(error?.code == .validationFailed)
        }
    }

    @Test func aUsernameIsSearchedByItsStartWithOrWithoutTheAt() throws {
        #expect(try NameSearch.query("@Kai") == .words(["kai"]))
        #expect(NameSearch.usernamePrefix("@Kai_2") == "kai_2")
        #expect(NameSearch.usernamePrefix("kai") == "kai")
        #expect(NameSearch.usernamePrefix("Kai Ross") == nil)
        #expect(NameSearch.usernamePrefix("kai@example.com") == nil)
        #expect(try NameSearch.query("kai@example.com") == .email("kai@example.com"))
    }

    @Test func wholeWordsRankFirstThenNames() {
        let users = [
            UserSummary(id: "3", displayName: "Annabel"), UserSummary(id: "1", displayName: "Ann Lee"),
            UserSummary(id: "2", displayName: "Anna"),
        ]
        #expect(NameSearch.rank(users, for: ["ann"]).map(\.id) == ["1", "2", "3"])
    }

    @Test func registrationIndexesTheNameAndDeletionTakesItOut() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(config: fastHashing, directory: directory) { client in
            _ = try await client.post(
                "/v1/auth/register",
                RegisterRequest(
                    email: "zoe@example.com", password: "correct horse battery", displayName: "Zoë Ångström"))
            let tokens = try await client.post(
                "/v1/auth/login", LoginRequest(email: "zoe@example.com", password: "correct horse battery")
            ).json(TokenResponse.self)
            let id = try await client.userID(of: tokens)
            let store = UserStore(
                database: try DatabasePool(path: directory.url.appendingPathComponent("auth/auth.sqlite").path),
                outbox: Outbox(source: .auth, clock: SystemClock(), entropy: SystemEntropy()))
            let zoe = UserSummary(id: id, displayName: "Zoë Ångström")
            #expect(try await store.search(.words(["angs"]), limit: 20) == [zoe])
            #expect(try await store.search(.email("zoe@example.com"), limit: 20) == [zoe])
            #expect(try await store.search(.words(["zz"]), limit: 20).isEmpty)

            let deleted = try await client.send(
                .delete, "/v1/me", AccountDeletionRequest(password: "correct horse battery"),
                token: tokens.accessToken)
            #expect(deleted.status == .accepted, "\(deleted.error?.message ?? "")")
            #expect(try await store.search(.words(["angs"]), limit: 20).isEmpty)
            #expect(try await store.search(.words(["deleted"]), limit: 20).isEmpty)
            #expect(try await store.search(.email("zoe@example.com"), limit: 20).isEmpty)
        }
    }
}
