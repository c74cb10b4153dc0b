import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import AuthService

/// Friend search's rules (the route itself is replayed in ContractTests' `user-search`).
@Suite struct NameSearchTests {
    @Test func aNameIsSearchedByItsWordsWithoutCaseAccentsOrRepeats() {
        #expect(NameSearch.words(of: "Zoë  Ångström-zoë") == ["zoe", "angstrom"])
        #expect(NameSearch.words(of: "ＡＢＣ") == ["abc"])
        #expect(NameSearch.ftsQuery(["ang", "zo"]) == "\"ang\"* \"zo\"*")
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
                database: try directory.authDatabasePool(),
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

    /// `GET /v1/users/search` through FTS5: usernames by their start first, then words of a
    /// username or a name (whole words first), any case or accent; renamed people are found by
    /// the new name only; paged.
    @Test func peopleAreFoundByUsernameAndNameWordsAndPaged() async throws {
        try await withAuth(config: fastHashing) { client in
            var ids: [String: String] = [:]
            for (email, name, username) in [
                ("lee@example.com", "Ann Lee", "lee"), ("anna@example.com", "Anna", nil),
                ("bel@example.com", "Annabel", nil), ("annie@example.com", "Zed", "annie"),
                ("skate@example.com", "Bo", "skate_ann"), ("bob@example.com", "Bob", nil),
            ] as [(String, String, String?)] {
                _ = try await client.post(
                    "/v1/auth/register",
                    RegisterRequest(
                        email: email, password: "correct horse battery", displayName: name, username: username))
                ids[name] = try await client.userID(
                    of: try await client.post(
                        "/v1/auth/login", LoginRequest(email: email, password: "correct horse battery")
                    ).json(TokenResponse.self))
            }
            let searcher = try await client.signUp("me@example.com").accessToken
            func found(_ q: String) async throws -> [String] {
                let byID = Dictionary(uniqueKeysWithValues: ids.map { ($1, $0) })
                return try await client.allPages(
                    "/v1/users/search?limit=2&q=\(q)", token: searcher, of: UserSummary.self
                )
                .map { byID[$0.id] ?? $0.id }
            }
            // The username that starts so, then a whole word (a username's too), then by name.
            #expect(try await found("ann") == ["Zed", "Ann Lee", "Bo", "Anna", "Annabel"])
            #expect(try await found("%C3%81NN%20lee") == ["Ann Lee"])
            #expect(try await found("skate") == ["Bo"])
            #expect(try await found("ann%20zzz").isEmpty)

            // A new name is found, the old one no longer.
            let anna = try await client.post(
                "/v1/auth/login", LoginRequest(email: "anna@example.com", password: "correct horse battery")
            ).json(TokenResponse.self).accessToken
            _ = try await client.send(.patch, "/v1/me", ProfileUpdate(displayName: "Hanna Berg"), token: anna)
            #expect(try await found("berg") == ["Anna"])
            #expect(try await found("ann") == ["Zed", "Ann Lee", "Bo", "Annabel"])
            #expect(try await client.get("/v1/users/search?q=ann&limit=51", token: searcher).status == .badRequest)
        }
    }

    /// `auth.v10.people-fts` indexes everyone already registered (not the deleted) and drops
    /// the word table.
    @Test func theMigrationIndexesExistingPeople() async throws {
        let queue = try DatabaseQueue()
        var migrator = DatabaseMigrator()
        AuthStore.registerMigrations(&migrator)
        try migrator.migrate(queue, upTo: "auth.v9.avatars")
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO user (id, email, password_hash, display_name, username, created_at, updated_at, deleted_at)
                    VALUES ('u1', 'a@example.com', 'x', 'Zoë Ångström', 'zoe_a', '2026-11-20 10:00:00.000',
                            '2026-11-20 10:00:00.000', NULL),
                           ('u2', NULL, NULL, 'Gone Person', NULL, '2026-11-20 10:00:00.000',
                            '2026-11-20 10:00:00.000', '2026-11-21 10:00:00.000');
                    """)
        }
        try migrator.migrate(queue)
        try await queue.read { db in
            #expect(!(try db.tableExists("user_name_word")))
            let found = try String.fetchAll(
                db,
                sql: """
                    SELECT s.user_id FROM user_fts f JOIN user_search s ON s.id = f.rowid
                    WHERE user_fts MATCH ? ORDER BY s.user_id
                    """, arguments: [NameSearch.ftsQuery(["angs"])])
            #expect(found == ["u1"])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user_search") == 1)
        }
    }
}
