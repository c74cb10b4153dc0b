import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// What push delivery reads and writes: the message for a notification and the devices still
/// waiting for it.
extension AlertsStore {
    /// A notification ready to push, the devices that have not had it, and the user's quiet
    /// hours.
    struct PushPlan: Sendable {
        var message: PushMessage
        var userId: String
        var devices: [DeviceRecord]
        var quietHours: QuietHours?
    }

    /// How long a notification is worth pushing after it was made.
    static let pushLifetime: TimeInterval = 86_400

    /// The plan for notification `id`, or nil when nothing is to be pushed: it is gone (deleted,
    /// the user erased) or already read, the user turned its type off, a block stands between
    /// the user and its actor, or it is older than a day.
    func pushPlan(for id: String, now: Date) async throws -> PushPlan? {
        try await pushPlans(for: [id], now: now)[0]
    }

    /// The plans of notifications `ids`, in order, in one read: a fan-out's group of pushes
    /// reads its plans together (one transaction, the pages they share read once).
    func pushPlans(for ids: [String], now: Date) async throws -> [PushPlan?] {
        try await database.tracedRead { db in try ids.map { try Self.pushPlan(for: $0, now: now, in: db) } }
    }

    static func pushPlan(for id: String, now: Date, in db: Database) throws -> PushPlan? {
        // Statements the connection keeps: a fan-out reads a plan per push.
        guard let notification = try NotificationRecord.find(id, in: db), notification.readAt == nil,
            now.timeIntervalSince(notification.createdAt) < Self.pushLifetime
        else { return nil }
        let user = notification.userId
        let kind = NotificationCatalog.kind(of: notification.type)
        let preferences = try Self.preferences(of: user, in: db)
        guard kind.critical || preferences.push[kind.preference] ?? kind.pushByDefault else { return nil }
        if let actor = notification.actorId, try BlockMirror.isBlocked(actor, user, in: db) { return nil }
        let devices = try DeviceRecord.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT * FROM device WHERE user_id = ?
                    AND id NOT IN (SELECT device_id FROM push_delivery WHERE notification_id = ?)
                    ORDER BY id
                    """), arguments: [user, id])
        let contract = notification.contract
        let message = PushMessage(
            notificationId: id, type: notification.type, title: notification.title, body: notification.body,
            link: notification.link, data: contract.data,
            badge: try NotificationRecord.unreadCount(of: user, in: db), critical: kind.critical,
            threadId: contract.data["streakId"] ?? contract.data["challengeId"],
            expiresAt: notification.createdAt.addingTimeInterval(Self.pushLifetime))
        return PushPlan(message: message, userId: user, devices: devices, quietHours: preferences.quietHours)
    }

    /// Removes a device whose token the provider called dead, unless it was registered again
    /// since (same id, another token: never; a moved token has a new id).
    static func removeDeadDevice(id: String, token: String, in db: Database) throws {
        try DeviceRecord.filter(key: id).filter(DeviceRecord.Columns.token == token).deleteAll(db)
    }

    /// Removes the devices with these ids (Expo receipts name devices by ticket).
    static func removeDevices(ids: [String], in db: Database) throws {
        try DeviceRecord.filter(keys: ids).deleteAll(db)
    }
}
