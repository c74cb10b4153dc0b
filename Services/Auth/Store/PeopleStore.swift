import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// People as every list shows them (``PersonView``), read from auth's own users, with avatars
/// from its copy of media: people search and `GET /v1/users?ids=`.
struct PeopleStore: Sendable {
    let database: DatabasePool
    let views: Views

    /// Those of `ids` `viewer` may see, in the order given: app users (no PIN customers), not
    /// deleted, no block either way.
    func people(_ ids: [String], viewer: String) async throws -> [PersonView] {
        guard !ids.isEmpty else { return [] }
        return try await database.tracedRead { db in
            let rows = try UserRecord.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT u.* FROM user u WHERE u.id IN (SELECT value FROM json_each(:ids))
                        AND u.deleted_at IS NULL AND u.id NOT IN (SELECT user_id FROM customer)
                        AND \(BlockMirror.neitherBlocks(":viewer", "u.id"))
                        """), arguments: ["ids": JSONList.argument(ids), "viewer": viewer])
            let people = try views.people(from: rows.map { ProfileMirrorRecord($0.profileChanged) }, in: db)
            return ids.compactMap { people[$0] }
        }
    }

    /// The signed-in user's own profile (`GET /v1/me` and every answer that changes it): roles,
    /// plan, counts and the numbers auth holds, and the avatar as lists show it; one read.
    func ownProfile(_ user: UserRecord, at now: Date) async throws -> UserProfile {
        try await database.tracedRead { db in try profile(of: user, at: now, in: db) }
    }

    /// The own profile of the live user `userID`, the user read in the same transaction; nil
    /// when there is no such user (`GET /v1/me`, which every app start asks).
    func ownProfile(userID: String, at now: Date) async throws -> UserProfile? {
        try await database.tracedRead { db in
            try UserRecord.live(id: userID, in: db).map { try profile(of: $0, at: now, in: db) }
        }
    }

    private func profile(of user: UserRecord, at now: Date, in db: Database) throws -> UserProfile {
        var profile = user.profile(roles: try UserStore.roles(userID: user.id, in: db))
        profile.premium = try EntitlementStore.isPremium(userID: user.id, now: now, in: db)
        profile.emailVerified = user.emailVerifiedAt != nil
        let counts = try ProfileCountRecord.of(user.id, in: db)
        profile.counts = counts?.counts ?? ProfileCounts()
        profile.stats = ProfileStats(challenges: counts?.challenges)
        profile.avatar = try views.people(from: [ProfileMirrorRecord(user.profileChanged)], in: db)[user.id]?.avatar
        return profile
    }
}
