import Contracts
import Foundation
import GRDB
import ServiceKit

/// What each user wants pushed: their choices over the catalog's defaults.
extension AlertsStore {
    /// Whether each type is pushed for `user`, every type of the catalog included.
    func pushPreferences(of user: String) async throws -> [NotificationType: Bool] {
        try await database.read { db in try Self.pushPreferences(of: user, in: db) }
    }

    /// Stores `changes` (only the types named) and returns the whole set.
    func setPushPreferences(
        _ changes: [NotificationType: Bool], of user: String, at now: Date
    ) async throws -> [NotificationType: Bool] {
        try await database.write { db in
            for (type, push) in changes {
                try NotificationPreferenceRecord(userId: user, type: type, push: push, updatedAt: now).upsert(db)
            }
            return try Self.pushPreferences(of: user, in: db)
        }
    }

    static func pushPreferences(of user: String, in db: Database) throws -> [NotificationType: Bool] {
        var preferences = Dictionary(
            uniqueKeysWithValues: NotificationCatalog.kinds.map { ($0.type, $0.pushByDefault) })
        for choice in try NotificationPreferenceRecord.all().of(user).fetchAll(db) {
            preferences[choice.type] = choice.push
        }
        return preferences
    }
}
