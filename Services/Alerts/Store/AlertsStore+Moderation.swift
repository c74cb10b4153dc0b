import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// What moderators did, told to the user it touched, each with the moderator's reason and a
/// link to the action (where the app offers the appeal).
extension AlertsStore {
    /// `user.warned` → `moderation_warning`.
    static func userWarned(_ envelope: EventEnvelope<UserWarned>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        try tell(
            .moderationWarning, event.userId, action: event.actionId, ["reason": event.reason], envelope.header, jobs,
            db)
    }

    /// `content.removed` → `content_removed` "Your post was removed".
    static func contentRemoved(_ envelope: EventEnvelope<ContentRemoved>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        let kind = event.targetType == .challengeClip ? "clip" : event.targetType.rawValue
        try tell(
            .contentRemoved, event.ownerId, action: event.actionId, ["reason": event.reason, "kind": kind],
            envelope.header, jobs, db, data: ["targetType": event.targetType.rawValue, "targetId": event.targetId])
    }

    /// `user.suspended` → `account_suspended`, with when it ends (UTC).
    static func userSuspended(_ envelope: EventEnvelope<UserSuspended>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        let until = event.until.utcMinute
        try tell(
            .accountSuspended, event.userId, action: event.actionId, ["reason": event.reason, "until": until],
            envelope.header, jobs, db)
    }

    /// `user.reinstated` → `account_reinstated`.
    static func userReinstated(_ envelope: EventEnvelope<UserReinstated>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        try tell(.accountReinstated, event.userId, action: event.actionId, [:], envelope.header, jobs, db)
    }

    /// `appeal.decided` → `appeal_decided` "The action was undone: …" or "The action stands: …".
    static func appealDecided(_ envelope: EventEnvelope<AppealDecided>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        let outcome = event.outcome == .reverse ? "The action was undone" : "The action stands"
        try tell(
            .appealDecided, event.userId, action: event.actionId, ["reason": event.reason, "outcome": outcome],
            envelope.header, jobs, db, data: ["appealId": event.appealId])
    }

    /// `content.hidden` or `content.removed` of a message: its recipient no longer sees it
    /// (the sender still does: it is what they sent), nor the notification quoting it (gone for
    /// good, with its push if not yet sent). One the recipient deleted stays deleted.
    static func hideMessage(_ id: String, in db: Database) throws {
        guard let message = try MessageRecord.filter(MessageRecord.Columns.id == id).fetchOne(db),
            let conversation = try ConversationRecord.fetchOne(db, key: message.conversationId)
        else { return }
        for user in conversation.participants where user != message.senderId {
            try HiddenMessageRecord(messageId: id, userId: user, reason: .moderated).insert(db, onConflict: .ignore)
        }
        try NotificationRecord.filter(NotificationRecord.Columns.type == NotificationType.message)
            .filter(sql: "json_extract(data, '$.messageId') = ?", arguments: [id]).deleteAll(db)
    }

    /// `content.restored` of a message: shown again to whom moderation hid it from.
    static func restoreMessage(_ id: String, in db: Database) throws {
        try HiddenMessageRecord.filter(
            Column("message_id") == id && Column("reason") == HiddenMessageRecord.Reason.moderated
        ).deleteAll(db)
    }

    private static func tell(
        _ type: NotificationType, _ user: String, action: String, _ values: [String: String], _ event: EventHeader,
        _ jobs: JobQueue, _ db: Database, data: [String: String] = [:]
    ) throws {
        try insert(
            type, for: user, values: values, data: data.merging(["actionId": action]) { own, _ in own }, actor: nil,
            event: event, jobs: jobs, in: db)
    }
}
