import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// The milestone cards users made and where they shared them (share analytics).
extension StreakStore {
    /// Keeps `card`, which `user` made of their streak `streakID`; the card with its id. Nil
    /// when the streak is no longer theirs (ended with a deleted friend while it was drawn).
    func keep(_ card: ShareCard, of streakID: String, by user: String, at now: Date) async throws -> ShareCard? {
        let id = entropy.uuid().uuidString.lowercased()
        return try await database.tracedWrite { db in
            guard try StreakRecord.filter(key: streakID).of(user).fetchCount(db) > 0 else { return nil }
            try ShareCardRecord(
                id: id, userId: user, streakId: streakID, mediaId: card.mediaId, style: card.style, count: card.count,
                platform: nil, sharedAt: nil, createdAt: now
            ).insert(db)
            var kept = card
            kept.id = id
            return kept
        }
    }

    /// Records that `user` shared their card `id` on `platform` (again: the latest wins); nil
    /// when the card is not theirs.
    func markShared(
        _ id: String, by user: String, on platform: SharePlatform, at now: Date
    ) async throws
        -> ShareCardShare?
    {
        try await database.tracedWrite { db in
            guard var card = try ShareCardRecord.fetchOne(db, key: id), card.userId == user else { return nil }
            card.platform = platform
            card.sharedAt = now
            try card.update(db)
            return card.contract
        }
    }
}
