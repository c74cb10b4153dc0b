import Contracts
import Foundation
import GRDB
import ServiceKit

/// The notification centre, and the events that fill it.
extension AlertsStore {
    func notifications(
        of user: String, after position: TimePosition?, limit: Int
    ) async throws -> [NotificationRecord] {
        try await database.read { db in
            try NotificationRecord.all().of(user).newestFirst(after: position, limit: limit).fetchAll(db)
        }
    }

    func unreadCount(of user: String) async throws -> Int {
        try await database.read { db in try NotificationRecord.all().of(user).unread().fetchCount(db) }
    }

    /// Marks one of `user`'s notifications read (someone else's is not found). Reading twice
    /// keeps the first time.
    func markRead(id: String, of user: String, at now: Date) async throws -> NotificationRecord? {
        try await database.write { db in
            guard var record = try NotificationRecord.filter(key: id).of(user).fetchOne(db) else { return nil }
            if record.readAt == nil {
                record.readAt = now
                try record.update(db)
            }
            return record
        }
    }

    func markAllRead(of user: String, at now: Date) async throws -> Int {
        try await database.write { db in
            try NotificationRecord.all().of(user).unread().updateAll(db, NotificationRecord.Columns.readAt.set(to: now))
        }
    }

    // MARK: - Events

    /// Stores the notification an event makes for `user`, once per event.
    static func insert(
        for user: String, type: NotificationType, title: String, body: String, data: [String: String],
        event: EventHeader, in db: Database
    ) throws {
        let json = String(decoding: try JSONCoding.encoder().encode(data), as: UTF8.self)
        let id = event.id.uuidString.lowercased()
        try NotificationRecord(
            id: id, userId: user, type: type, title: title, body: body, data: json, sourceEventId: id,
            createdAt: event.occurredAt, readAt: nil
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
