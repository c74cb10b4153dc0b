import Contracts
import Foundation
import GRDB
import ServiceKit

/// The alerts service's database: each user's notification centre, and tenants' duress alerts.
struct AlertsStore: Sendable {
    let database: DatabasePool

    func notifications(
        of user: String, after position: TimePosition?, limit: Int
    ) async throws -> [NotificationRecord] {
        try await database.read { db in
            try NotificationRecord.filter(sql: "user_id = ?", arguments: [user])
                .newestFirst(after: position, limit: limit).fetchAll(db)
        }
    }

    func unreadCount(of user: String) async throws -> Int {
        try await database.read { db in
            try NotificationRecord.filter(sql: "user_id = ? AND read_at IS NULL", arguments: [user]).fetchCount(db)
        }
    }

    /// Marks one of `user`'s notifications read (someone else's is not found). Reading twice
    /// keeps the first time.
    func markRead(id: String, of user: String, at now: Date) async throws -> NotificationRecord? {
        try await database.write { db in
            guard var record = try NotificationRecord.fetchOne(db, key: id), record.userID == user else { return nil }
            if record.readAt == nil {
                record.readAt = now
                try record.update(db)
            }
            return record
        }
    }

    func markAllRead(of user: String, at now: Date) async throws -> Int {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE notification SET read_at = ? WHERE user_id = ? AND read_at IS NULL",
                arguments: [now, user])
            return db.changesCount
        }
    }

    // MARK: - Events

    static func insert(
        for user: String, type: NotificationType, title: String, body: String, data: [String: String],
        event: EventHeader, in db: Database
    ) throws {
        let json = String(decoding: try JSONCoding.encoder().encode(data), as: UTF8.self)
        try NotificationRecord(
            id: event.id.uuidString.lowercased(), userID: user, type: type, title: title, body: body, data: json,
            sourceEventID: event.id.uuidString.lowercased(), createdAt: event.occurredAt, readAt: nil
        ).insert(db, onConflict: .ignore)
    }

    /// `friend_request.sent` → "X wants to be friends" for the recipient.
    static func friendRequestSent(_ envelope: EventEnvelope<FriendRequestSent>, in db: Database) throws {
        let event = envelope.payload
        try insert(
            for: event.toUserId, type: .friendRequest, title: "New friend request",
            body: "\(event.fromDisplayName) wants to be friends",
            data: ["requestId": event.requestId, "fromUserId": event.fromUserId], event: envelope.header, in: db)
    }

    /// `friend_request.accepted` → "X accepted" for the sender.
    static func friendRequestAccepted(_ envelope: EventEnvelope<FriendRequestAccepted>, in db: Database) throws {
        let event = envelope.payload
        try insert(
            for: event.fromUserId, type: .friendAccepted, title: "Friend request accepted",
            body: "\(event.toDisplayName) accepted: your streak starts today",
            data: ["requestId": event.requestId, "streakId": event.streakId, "userId": event.toUserId],
            event: envelope.header, in: db)
    }
}

extension AlertsStore {
    /// `duress.raised` → a duress alert for the customer's tenant. Applied once per event.
    static func duressRaised(_ envelope: EventEnvelope<DuressRaised>, in db: Database) throws {
        let event = envelope.payload
        try DuressAlertRecord(
            id: envelope.id.uuidString.lowercased(), incidentID: event.incidentId, tenantID: event.tenantId,
            customerRef: event.customerRef, userID: event.userId, latitude: event.location?.latitude,
            longitude: event.location?.longitude, devicePlatform: event.device?.platform, raisedAt: event.raisedAt
        ).insert(db, onConflict: .ignore)
    }

    func duressAlerts(tenantID: String) async throws -> [DuressAlertRecord] {
        try await database.read { db in
            try DuressAlertRecord.filter(sql: "tenant_id = ?", arguments: [tenantID]).order(sql: "raised_at DESC")
                .fetchAll(db)
        }
    }
}

extension EventEnvelope {
    /// The envelope without its payload.
    var header: EventHeader { EventHeader(id: id, type: type, source: source, occurredAt: occurredAt) }
}
