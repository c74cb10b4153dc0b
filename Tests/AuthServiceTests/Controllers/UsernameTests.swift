import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import AuthService

/// Usernames: the rules, the check as one types, registration and `PATCH /v1/me`, the change
/// cooldown and the hold on a name given up.
@Suite struct UsernameTests {
    @Test(
        arguments: [
            ("alice", nil), ("Alice_99", nil), ("a.b_c", nil), ("ab", "invalid"), ("9lives", "invalid"),
            ("al..ice", "invalid"), ("alice.", "invalid"), ("al ice", "invalid"), ("ålice", "invalid"),
            (String(repeating: "a", count: 21), "invalid"), ("Admin", "reserved"), ("streaksnap", "reserved"),
        ] as [(String, String?)])
    func theRulesSayWhatAUsernameMayBe(name: String, refusal: String?) {
        switch UsernameRules.key(name) {
        case .success(let key): #expect(refusal == nil && key == name.lowercased())
        case .failure(let reason): #expect(reason.rawValue == refusal)
        }
    }

    @Test func aNameIsCheckedTakenAtRegistrationChangedOnceAMonthAndHeldWhenGivenUp() async throws {
        let clock = ManualClock(Date())
        try await withAuth(clock: clock) { client in
            func check(_ name: String) async throws -> UsernameAvailability {
                try await client.get("/v1/auth/check-username/\(name)").json(UsernameAvailability.self)
            }
            #expect(try await check("Kai") == UsernameAvailability(username: "Kai", available: true))
            #expect(try await check("admin").reason == "reserved")
            #expect(try await check("x").reason == "invalid")
            // A name arrives percent-encoded; it is read as typed, and its length counted so too.
            #expect(
                try await check("K%C3%A4i")
                    == UsernameAvailability(username: "Käi", available: false, reason: "invalid"))
            #expect(try await check(String(repeating: "%C3%A4", count: 30)).reason == "invalid")
            #expect(try await client.get("/v1/auth/check-username/%FF").status == .badRequest)

            // Registration takes it, case-insensitively; a second account cannot.
            let kai = RegisterRequest(email: "kai@example.com", password: "correct horse battery", username: "Kai")
            #expect(try await client.post("/v1/auth/register", kai).status == .accepted)
            #expect(try await check("kai").reason == "taken")
            var other = RegisterRequest(email: "leo@example.com", password: "correct horse battery", username: "KAI")
            #expect(try await client.post("/v1/auth/register", other).status == .conflict)
            other.username = "bad name"
            #expect(try await client.post("/v1/auth/register", other).status == .badRequest)
            other.username = nil
            #expect(try await client.post("/v1/auth/register", other).status == .accepted)

            let login = try await client.post(
                "/v1/auth/login", LoginRequest(email: "kai@example.com", password: "correct horse battery")
            ).json(TokenResponse.self)
            let me = try await client.get("/v1/me", token: login.accessToken).json(UserProfile.self)
            #expect(me.username == "Kai")
            let found = try await client.get("/v1/users/by-username/%40kai", token: login.accessToken)
            #expect(try found.json(PublicProfile.self).id == me.id)

            // Letter case changes freely; another name waits 30 days from the last change.
            let token = login.accessToken
            var changed = try await client.send(.patch, "/v1/me", ProfileUpdate(username: "KAI"), token: token)
            #expect(try changed.json(UserProfile.self).username == "KAI")
            let early = try await client.send(.patch, "/v1/me", ProfileUpdate(username: "kai_2"), token: token)
            #expect(early.status == .tooManyRequests)
            #expect(early.headers[HTTPField.Name("retry-after")!] == String(30 * 86400))
            clock.advance(by: 30 * 86400)
            let fresh = try await client.post(
                "/v1/auth/login", LoginRequest(email: "kai@example.com", password: "correct horse battery")
            ).json(TokenResponse.self).accessToken
            changed = try await client.send(
                .patch, "/v1/me", ProfileUpdate(displayName: "Kai R", username: "kai_2"), token: fresh)
            let profile = try changed.json(UserProfile.self)
            #expect(profile.username == "kai_2" && profile.displayName == "Kai R")

            // The old name is held from everyone else for 30 days, then free.
            #expect(try await check("kai").reason == "taken")
            let leo = try await client.post(
                "/v1/auth/login", LoginRequest(email: "leo@example.com", password: "correct horse battery")
            ).json(TokenResponse.self).accessToken
            #expect(
                try await client.send(.patch, "/v1/me", ProfileUpdate(username: "kai"), token: leo).status == .conflict)
            #expect(
                try await client.send(.patch, "/v1/me", ProfileUpdate(username: "kai_2"), token: leo).status
                    == .conflict)
            clock.advance(by: 30 * 86400 + 1)
            #expect(try await check("kai").available)
            let leoLater = try await client.post(
                "/v1/auth/login", LoginRequest(email: "leo@example.com", password: "correct horse battery")
            ).json(TokenResponse.self).accessToken
            let taken = try await client.send(.patch, "/v1/me", ProfileUpdate(username: "kai"), token: leoLater)
            #expect(try taken.json(UserProfile.self).username == "kai")
            #expect(
                try await client.send(.patch, "/v1/me", ProfileUpdate(displayName: ""), token: leoLater).status
                    == .badRequest)

            // Deleting the account gives the name up at once: someone new may register with it.
            let deleted = try await client.send(
                .delete, "/v1/me", AccountDeletionRequest(password: "correct horse battery"), token: leoLater)
            #expect(deleted.status == .accepted)
            #expect(try await check("kai").available)
            let newcomer = RegisterRequest(email: "nia@example.com", password: "correct horse battery", username: "kai")
            #expect(try await client.post("/v1/auth/register", newcomer).status == .accepted)
            let nia = try await client.post(
                "/v1/auth/login", LoginRequest(email: "nia@example.com", password: "correct horse battery"))
            #expect(nia.status == .ok)
        }
    }
}

@Suite struct PublicProfileTests {
    @Test func aProfileIsReadByIdOrCurrentUsernameButNotAcrossABlock() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(directory: directory) { client in
            for (email, username) in [("kai@example.com", "Kai_R"), ("leo@example.com", "leo")] {
                let register = RegisterRequest(email: email, password: "correct horse battery", username: username)
                #expect(try await client.post("/v1/auth/register", register).status == .accepted)
            }
            func signIn(_ email: String) async throws -> String {
                try await client.post("/v1/auth/login", LoginRequest(email: email, password: "correct horse battery"))
                    .json(TokenResponse.self).accessToken
            }
            let (kai, leo) = (try await signIn("kai@example.com"), try await signIn("leo@example.com"))
            let kaiID = try await client.get("/v1/me", token: kai).json(UserProfile.self).id
            let leoID = try await client.get("/v1/me", token: leo).json(UserProfile.self).id

            let byID = try await client.get("/v1/users/\(kaiID)", token: leo).json(PublicProfile.self)
            #expect(byID.username == "Kai_R" && byID.displayName == "kai" && byID.id == kaiID)
            for name in ["kai_r", "@KAI_R", "Kai_R"] {
                #expect(
                    try await client.get("/v1/users/by-username/\(name)", token: leo).json(PublicProfile.self) == byID)
            }
            #expect(try await client.get("/v1/users/by-username/nobody", token: leo).status == .notFound)

            // A bio: written, shown, too long refused, emptied away.
            _ = try await client.send(.patch, "/v1/me", ProfileUpdate(bio: "  Street, mostly ledges. "), token: kai)
            #expect(
                try await client.get("/v1/users/\(kaiID)", token: leo).json(PublicProfile.self).bio
                    == "Street, mostly ledges.")
            let long = ProfileUpdate(bio: String(repeating: "x", count: 161))
            #expect(try await client.send(.patch, "/v1/me", long, token: kai).status == .badRequest)
            _ = try await client.send(.patch, "/v1/me", ProfileUpdate(bio: ""), token: kai)
            #expect(try await client.get("/v1/users/\(kaiID)", token: leo).json(PublicProfile.self).bio == nil)
            #expect(try await client.get("/v1/users/by-username/x", token: leo).status == .notFound)

            // A block either way hides each from the other.
            try await directory.authDatabase().write { db in
                try BlockMirror.apply(UserBlocked(blockerId: kaiID, blockedId: leoID), in: db)
            }
            #expect(try await client.get("/v1/users/\(kaiID)", token: leo).status == .notFound)
            #expect(try await client.get("/v1/users/by-username/leo", token: kai).status == .notFound)
            try await directory.authDatabase().write { db in
                try BlockMirror.apply(UserUnblocked(blockerId: kaiID, blockedId: leoID), in: db)
            }
            #expect(try await client.get("/v1/users/by-username/leo", token: kai).status == .ok)

            // People search: by username or name, never by email, never across a block.
            func search(_ q: String, as token: String) async throws -> [String] {
                try await client.get("/v1/users/search?q=\(q)", token: token).json(Page<UserSummary>.self).items.map(
                    \.id)
            }
            #expect(try await search("kai_", as: leo) == [kaiID])
            #expect(try await search("%40Kai", as: leo) == [kaiID])
            #expect(try await search("leo", as: leo).isEmpty)  // not oneself
            #expect(try await client.get("/v1/users/search?q=kai%40example.com", token: leo).status == .badRequest)
            #expect(try await client.get("/v1/users/search?q=k", token: leo).status == .badRequest)
            try await directory.authDatabase().write { db in
                try BlockMirror.apply(UserBlocked(blockerId: leoID, blockedId: kaiID), in: db)
            }
            #expect(try await search("kai", as: leo).isEmpty)
            try await directory.authDatabase().write { db in
                try BlockMirror.apply(UserUnblocked(blockerId: leoID, blockedId: kaiID), in: db)
            }
            // Nor anyone the searcher muted (their profile still opens).
            try await directory.authDatabase().write { db in
                try MuteMirrorRecord(muterId: leoID, mutedId: kaiID).insert(db)
            }
            #expect(try await search("kai", as: leo).isEmpty)
            #expect(try await client.get("/v1/users/\(kaiID)", token: leo).status == .ok)
            try await directory.authDatabase().write { db in
                _ = try MuteMirrorRecord.deleteOne(db, key: ["muter_id": leoID, "muted_id": kaiID])
            }
            #expect(try await search("kai", as: leo) == [kaiID])

            // Feed's counts: the highest revision wins whatever order they come in; a user
            // auth does not know is ignored.
            #expect(
                try await client.get("/v1/users/\(kaiID)", token: leo).json(PublicProfile.self).counts
                    == ProfileCounts())
            try await directory.authDatabase().write { db in
                for (followers, revision) in [(2, 2), (1, 1), (3, 3), (9, 2)] {
                    try UserStore.countsChanged(
                        ProfileCountsChanged(
                            userId: kaiID, counts: ProfileCounts(followers: followers, following: 4, posts: 5),
                            revision: revision), in: db)
                }
                try UserStore.countsChanged(
                    ProfileCountsChanged(
                        userId: "00000000-0000-4000-8000-0000000000ff", counts: ProfileCounts(), revision: 1),
                    in: db)
                #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM profile_count") == 1)
            }
            #expect(
                try await client.get("/v1/users/by-username/kai_r", token: leo).json(PublicProfile.self).counts
                    == ProfileCounts(followers: 3, following: 4, posts: 5))

            // The challenge standing comes with the counts, once there is one.
            #expect(
                try await client.get("/v1/users/\(kaiID)", token: leo).json(PublicProfile.self).stats == ProfileStats())
            let standing = ChallengeStats(
                userId: kaiID, points: 4, wins: 1, losses: 0, draws: 1, streak: 1, bestStreak: 1, spotsUnlocked: 2)
            try await directory.authDatabase().write { db in
                try UserStore.countsChanged(
                    ProfileCountsChanged(
                        userId: kaiID, counts: ProfileCounts(followers: 3, following: 4, posts: 5),
                        challenges: standing,
                        revision: 4), in: db)
            }
            #expect(
                try await client.get("/v1/users/\(kaiID)", token: leo).json(PublicProfile.self).stats
                    == ProfileStats(challenges: standing))
        }
    }
}
