import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// What each user wants pushed, and when not: their choices over the catalog's defaults, and
/// their quiet hours.
extension AlertsStore {
    /// Push per type (every type of the catalog a user chooses for: those no other type
    /// governs) and quiet hours.
    struct Preferences: Sendable, Equatable {
        var push: [NotificationType: Bool]
        var quietHours: QuietHours?
    }

    func preferences(of user: String) async throws -> Preferences {
        try await database.tracedRead { db in try Self.preferences(of: user, in: db) }
    }

    /// Stores `push` changes (only the types named) and, when `quietHours` is given, sets or
    /// (with nil) clears quiet hours, in one transaction; returns the whole set.
    func setPreferences(
        push changes: [NotificationType: Bool], quietHours: QuietHours??, of user: String, at now: Date
    ) async throws -> Preferences {
        try await database.tracedWrite { db in
            for (type, push) in changes {
                try NotificationPreferenceRecord(userId: user, type: type, push: push, updatedAt: now).upsert(db)
            }
            switch quietHours {
            case .none: break
            case .some(.none): try QuietHoursRecord.deleteOne(db, key: user)
            case .some(.some(let rule)):
                try QuietHoursRecord(
                    userId: user, startMinute: rule.start, endMinute: rule.end, timeZone: rule.zone.identifier,
                    mode: rule.mode, updatedAt: now
                ).upsert(db)
            }
            return try Self.preferences(of: user, in: db)
        }
    }

    static func preferences(of user: String, in db: Database) throws -> Preferences {
        var push = Dictionary(
            uniqueKeysWithValues: NotificationCatalog.kinds.filter { $0.governedBy == nil }.map {
                ($0.type, $0.pushByDefault)
            })
        // Statements the connection keeps: every push reads its user's preferences.
        let choices = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT type, push FROM notification_preference WHERE user_id = ?"),
            arguments: [user])
        while let choice = try choices.next() {
            let type: NotificationType = try choice.decode(forColumn: "type")
            if push[type] != nil { push[type] = try choice.decode(Bool.self, forColumn: "push") }
        }
        // A critical type cannot be turned off (a choice stored before that rule is ignored).
        for kind in NotificationCatalog.kinds where kind.critical { push[kind.type] = true }
        let quietHours = try QuietHoursRecord.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM quiet_hours WHERE user_id = ?"), arguments: [user])
        return Preferences(push: push, quietHours: quietHours?.rule)
    }
}
