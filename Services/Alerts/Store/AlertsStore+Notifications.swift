import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// The notification centre, and the events that fill it.
extension AlertsStore {
    func notifications(
        of user: String, after position: TimePosition?, limit: Int
    ) async throws -> [AppNotification] {
        try await database.tracedRead { [views] db in
            try Self.shown(
                try TimePosition.newestFirst(
                    NotificationRecord.self, "SELECT * FROM notification WHERE user_id = ?", arguments: [user],
                    after: position, limit: limit, in: db),
                views: views, in: db)
        }
    }

    func unreadCount(of user: String) async throws -> Int {
        try await database.tracedRead { db in try NotificationRecord.unreadCount(of: user, in: db) }
    }

    /// Marks one of `user`'s notifications read (someone else's is not found). Reading twice
    /// keeps the first time.
    func markRead(id: String, of user: String, at now: Date) async throws -> AppNotification? {
        try await database.tracedWrite { [views] db in
            guard var record = try NotificationRecord.filter(key: id).of(user).fetchOne(db) else { return nil }
            if record.readAt == nil {
                record.readAt = now
                try record.update(db)
            }
            // Answered as the list shows it, with its actor.
            return try Self.shown([record], views: views, in: db).first
        }
    }

    /// Marks those of `ids` that are `user`'s and unread; returns how many changed.
    func markRead(ids: [String], of user: String, at now: Date) async throws -> Int {
        try await database.tracedWrite { db in
            try NotificationRecord.filter(keys: ids).of(user).unread()
                .updateAll(db, NotificationRecord.Columns.readAt.set(to: now))
        }
    }

    /// Deletes one of `user`'s notifications; false when they have no such notification.
    func deleteNotification(id: String, of user: String) async throws -> Bool {
        try await database.tracedWrite { db in try NotificationRecord.filter(key: id).of(user).deleteAll(db) > 0 }
    }

    func markAllRead(of user: String, at now: Date) async throws -> Int {
        try await database.tracedWrite { db in
            try NotificationRecord.all().of(user).unread().updateAll(db, NotificationRecord.Columns.readAt.set(to: now))
        }
    }

    /// What a reconnecting stream missed: notifications oldest first, the direct messages some
    /// of them are about (by notification id), whether there was more than a replay holds, and
    /// the unread count.
    struct Missed: Sendable {
        var records: [AppNotification] = []
        var messages: [String: DirectMessage] = [:]
        var more = false
        var unread: Int
    }

    /// What `user` missed after notification `id` (at most `limit`; `more` when there was more
    /// than that). An id that is not theirs, or no longer exists, replays nothing.
    func missed(after id: String?, of user: String, limit: Int) async throws -> Missed {
        try await database.tracedRead { db in
            let unread = try NotificationRecord.unreadCount(of: user, in: db)
            guard let id,
                let seen = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT rowid FROM notification WHERE id = ? AND user_id = ?"),
                    arguments: [id, user])
            else { return Missed(unread: unread) }
            let records = try NotificationRecord.fetchAll(
                db.cachedStatement(
                    sql: "SELECT * FROM notification WHERE user_id = ? AND rowid > ? ORDER BY rowid LIMIT ?"),
                arguments: [user, seen, limit + 1])
            let replayed = Array(records.prefix(limit))
            return Missed(
                records: try Self.shown(replayed, views: views, in: db),
                messages: try Self.directMessages(of: replayed, views: views, in: db), more: records.count > limit,
                unread: unread)
        }
    }

    // MARK: - Events

    /// Stores the notification of `type` an event makes for `user`, once per event (once per
    /// event and recipient when it reaches several: `shared`): title, body and link rendered
    /// from the catalog with `values` (and `actor`, the actor's display name). Its push is
    /// scheduled in the same transaction when the user has a device, so a committed
    /// notification is pushed even if alerts dies right after. Nothing is made when `user`
    /// muted the actor, unless it is critical.
    static func insert(
        _ type: NotificationType, for user: String, values: [String: String], data: [String: String],
        actor: (id: String, name: String)?, event: EventHeader, shared: Bool = false, jobs: JobQueue,
        in db: Database
    ) throws {
        let kind = NotificationCatalog.kind(of: type)
        if let actor, !kind.critical, try MuteMirror.isMuted(actor.id, by: user, in: db) { return }
        // An event sent before its service applied a deletion may arrive after alerts did.
        if try ProfileMirror.anyDeleted([user] + (actor.map { [$0.id] } ?? []), in: db) { return }
        var values = values.merging(data) { own, _ in own }
        if let actor { values["actor"] = actor.name }
        let json = String(decoding: try JSONCoding.encoder().encode(data), as: UTF8.self)
        let id = (shared ? event.id(for: user) : event.id).uuidString.lowercased()
        try NotificationRecord(
            id: id, userId: user, type: type, title: NotificationKind.render(kind.title, values),
            body: NotificationKind.render(kind.body, values), data: json,
            link: kind.link.map { NotificationKind.render($0, values) }, actorId: actor?.id, sourceEventId: id,
            createdAt: event.occurredAt, readAt: nil
        ).insert(db, onConflict: .ignore)
        // A user with no device has nothing to push (a device registered later is pushed the
        // notifications made after it), and costs no job.
        if db.changesCount > 0, try hasDevice(user, in: db) {
            try jobs.schedule(PushDelivery.kind, key: id, payload: PushDelivery.Job(notificationId: id), in: db)
        }
    }

    private static func hasDevice(_ user: String, in db: Database) throws -> Bool {
        let statement = try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM device WHERE user_id = ?)")
        return try Bool.fetchOne(statement, arguments: [user]) ?? false
    }

    /// `friend_request.sent` → "X wants to be friends" for the recipient.
    static func friendRequestSent(
        _ envelope: EventEnvelope<FriendRequestSent>, jobs: JobQueue, in db: Database
    ) throws {
        let event = envelope.payload
        try insert(
            .friendRequest, for: event.toUserId, values: [:],
            data: ["requestId": event.requestId, "fromUserId": event.fromUserId],
            actor: (event.fromUserId, event.fromDisplayName), event: envelope.header, jobs: jobs, in: db)
    }

    /// `friend_request.accepted` → "X accepted" for the sender.
    static func friendRequestAccepted(
        _ envelope: EventEnvelope<FriendRequestAccepted>, jobs: JobQueue, in db: Database
    ) throws {
        let event = envelope.payload
        try insert(
            .friendAccepted, for: event.fromUserId, values: [:],
            data: ["requestId": event.requestId, "streakId": event.streakId, "userId": event.toUserId],
            actor: (event.toUserId, event.toDisplayName), event: envelope.header, jobs: jobs, in: db)
    }
}
