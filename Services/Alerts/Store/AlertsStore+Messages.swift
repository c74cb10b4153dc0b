import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Direct messages: one conversation per pair of people, each person's side of it
/// (folder, what they read, what they deleted), and the messages. A message from someone the
/// recipient does not follow opens the conversation in their requests; a block either way
/// stops messages both ways; words the recipient muted keep a message out of their view.
extension AlertsStore {
    /// A message about to be stored, checked against everything outside alerts.
    struct OutgoingMessage: Sendable {
        var sender: EventActor
        var recipient: String
        var text: String?
        var media: MediaSummary?
        /// Where a new conversation lands for the recipient (feed's follows decide).
        var recipientFolder: MessageFolder
    }

    enum SendOutcome {
        case sent(MessageRecord)
        /// A block stands between the two.
        case blocked
    }

    /// The conversation between `a` and `b` as `a` sees it, if they have one.
    func member(between a: String, and b: String) async throws -> ConversationMemberRecord? {
        try await database.tracedRead { db in
            guard let conversation = try ConversationRecord.between(a, b, in: db) else { return nil }
            return try ConversationMemberRecord.find(conversation.id, of: a, in: db)
        }
    }

    /// `user`'s side of conversation `id` (another's conversation: nil).
    func member(of id: String, user: String) async throws -> ConversationMemberRecord? {
        try await database.tracedRead { db in
            try ConversationMemberRecord.find(id, of: user, in: db)
        }
    }

    /// Stores `outgoing` as message `id`, opening the conversation when the two have none, and
    /// in the same transaction tells the recipient (unless the message is hidden from them)
    /// and names them a reader of its media. What media answered of that media when the send
    /// looked it up goes into the copy views read (unless the copy holds a later revision), so
    /// the message's view has its URLs from the moment it is answered, before
    /// `media.described` arrives.
    /// Opening one counts against `newConversations` (429 beyond it).
    func send(
        _ outgoing: OutgoingMessage, id: String, at now: Date, newConversations: RatePolicy, jobs: JobQueue
    ) async throws -> SendOutcome {
        let outbox = self.outbox
        return try await database.tracedWrite { db in
            let (sender, recipient) = (outgoing.sender.userId, outgoing.recipient)
            guard try !BlockMirror.isBlocked(sender, recipient, in: db) else { return .blocked }
            let conversation = try Self.conversation(
                between: sender, and: recipient, recipientFolder: outgoing.recipientFolder, id: id, at: now,
                limit: newConversations, in: db)
            if let described = outgoing.media?.described { _ = try MediaMirror.apply(described, in: db) }
            var message = MessageRecord(
                seq: nil, id: id, conversationId: conversation, senderId: sender, text: outgoing.text,
                mediaId: outgoing.media?.id, createdAt: now)
            try message.insert(db)
            let seq = db.lastInsertedRowID
            message.seq = seq

            // Writing is answering: the sender's side is read up to here (its notifications
            // too) and leaves requests. (Statements the connection keeps: every message runs them.)
            try db.cachedStatement(
                sql: """
                    UPDATE conversation_member SET hidden = 0, folder = 'inbox', read_seq = ?, updated_at = ?
                    WHERE conversation_id = ? AND user_id = ?
                    """
            ).execute(arguments: [seq, now, conversation, sender])
            try Self.readNotifications(of: conversation, for: sender, at: now, in: db)

            if let text = outgoing.text, try KeywordMuteMirror.mutedWords(of: recipient, at: now, in: db).matches(text)
            {
                try HiddenMessageRecord(messageId: id, userId: recipient, reason: .muted).insert(db)
            } else {
                try Self.deliver(message, of: outgoing, to: recipient, jobs: jobs, in: db)
            }
            if let media = outgoing.media {
                try outbox.enqueue(
                    MediaAttached(
                        mediaId: media.id, ownerId: sender, visibility: .private, referenceType: "message",
                        referenceId: id, readers: [recipient]), in: db)
            }
            return .sent(message)
        }
    }

    /// The recipient's side shows the message, and they are told: of each message in their
    /// inbox; of a request once, when it appears.
    private static func deliver(
        _ message: MessageRecord, of outgoing: OutgoingMessage, to recipient: String, jobs: JobQueue, in db: Database
    ) throws {
        guard
            var side = try ConversationMemberRecord.find(message.conversationId, of: recipient, in: db)
        else { return }
        let appears = side.hidden
        side.hidden = false
        side.updatedAt = message.createdAt
        try side.update(db)
        let header = EventHeader(
            id: UUID(uuidString: message.id) ?? UUID(), type: "message.sent", source: .alerts,
            occurredAt: message.createdAt)
        let actor = (outgoing.sender.userId, outgoing.sender.displayName)
        let data = ["conversationId": message.conversationId, "messageId": message.id]
        switch side.folder {
        case .inbox:
            let preview = MessageRules.preview(text: message.text, contentType: outgoing.media?.contentType)
            try insert(
                .message, for: recipient, values: ["preview": preview], data: data, actor: actor, event: header,
                jobs: jobs, in: db)
        case .requests where appears:
            try insert(
                .messageRequest, for: recipient, values: [:], data: data, actor: actor, event: header, jobs: jobs,
                in: db)
        case .requests:
            break
        }
    }

    /// The id of the conversation between the two, made (with both sides) if they have none.
    /// A new one is the recipient's only once a message shows (`hidden` until then).
    private static func conversation(
        between sender: String, and recipient: String, recipientFolder: MessageFolder, id: String, at now: Date,
        limit policy: RatePolicy, in db: Database
    ) throws -> String {
        if let existing = try ConversationRecord.between(sender, recipient, in: db) { return existing.id }
        typealias Columns = ConversationRecord.Columns
        let recent = try ConversationRecord.filter(
            Columns.startedBy == sender && Columns.createdAt > now.addingTimeInterval(-policy.window)
        ).select(Columns.createdAt, as: Date.self).fetchAll(db)
        let decision = policy.decide(after: recent, now: now)
        guard decision.allowed else {
            throw ServiceError.rateLimited(
                "At most \(policy.limit) new conversations a day.", policy: policy, decision: decision)
        }
        let (first, second) = sender < recipient ? (sender, recipient) : (recipient, sender)
        try ConversationRecord(id: id, firstUserId: first, secondUserId: second, startedBy: sender, createdAt: now)
            .insert(db)
        for (user, other, folder) in [(sender, recipient, MessageFolder.inbox), (recipient, sender, recipientFolder)] {
            try ConversationMemberRecord(
                conversationId: id, userId: user, otherUserId: other, folder: folder, hidden: true, readSeq: 0,
                clearedSeq: 0, updatedAt: now
            ).insert(db)
        }
        return id
    }

    // MARK: - Reading

    /// `user`'s conversations in `folder`, most recently active first, each with the last
    /// message they see and how many they have not read.
    func conversations(
        of user: String, in folder: MessageFolder, after position: TimePosition?, limit: Int
    ) async throws -> [Conversation] {
        try await database.tracedRead { db in
            let conversations = try TimePosition.newestFirst(
                ConversationMemberRecord.self,
                "SELECT * FROM conversation_member WHERE user_id = ? AND folder = ? AND hidden = 0",
                arguments: [user, folder], after: position, limit: limit, idColumn: "conversation_id",
                timeColumn: "updated_at", in: db
            ).map { try Self.summary(of: $0, in: db) }
            return try Self.shown(conversations, viewer: user, views: views, in: db)
        }
    }

    /// Conversation `id` as `user` sees it (another's: nil; one they deleted shows no messages).
    func conversation(_ id: String, of user: String) async throws -> Conversation? {
        try await database.tracedRead { db in
            guard let side = try ConversationMemberRecord.find(id, of: user, in: db)
            else { return nil }
            return try Self.shown([try Self.summary(of: side, in: db)], viewer: user, views: views, in: db)[0]
        }
    }

    /// The messages of `side`'s conversation they see, newest first, before message `before`
    /// (a `seq`; nil: the newest).
    func messages(
        of side: ConversationMemberRecord, before: Int64?, limit: Int
    ) async throws -> [(seq: Int64, message: DirectMessage)] {
        try await database.tracedRead { db in
            let records = try MessageRecord.fetchAll(
                db.cachedStatement(sql: Self.visibleMessages + " AND m.seq < ? ORDER BY m.seq DESC LIMIT ?"),
                arguments: [side.conversationId, side.clearedSeq, side.userId, before ?? Int64.max, limit])
            let shown = try Self.shown(records.map(\.contract), viewer: side.userId, views: views, in: db)
            return zip(records, shown).map { ($0.seq ?? 0, $1) }
        }
    }

    /// How many conversations in each folder have messages `user` has not read.
    func unreadConversations(of user: String) async throws -> MessagesUnread {
        try await database.tracedRead { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT s.folder, COUNT(*) AS n FROM conversation_member s
                        WHERE s.user_id = ? AND s.hidden = 0 AND EXISTS (
                            SELECT 1 FROM message m WHERE m.conversation_id = s.conversation_id
                            AND m.seq > max(s.read_seq, s.cleared_seq) AND m.sender_id != s.user_id
                            AND NOT EXISTS (SELECT 1 FROM hidden_message h WHERE h.message_id = m.id AND h.user_id = s.user_id))
                        GROUP BY s.folder
                        """), arguments: [user])
            let counts = Dictionary(
                uniqueKeysWithValues: rows.map { (row: Row) in (row["folder"] as String, row["n"] as Int) })
            return MessagesUnread(inbox: counts["inbox"] ?? 0, requests: counts["requests"] ?? 0)
        }
    }

    /// Messages of conversation `?1` after seq `?2` that user `?3` has not hidden.
    private static let visibleMessages = """
        SELECT m.* FROM message m WHERE m.conversation_id = ?1 AND m.seq > ?2
        AND NOT EXISTS (SELECT 1 FROM hidden_message h WHERE h.message_id = m.id AND h.user_id = ?3)
        """

    private static func summary(of side: ConversationMemberRecord, in db: Database) throws -> Conversation {
        let last = try MessageRecord.fetchOne(
            db.cachedStatement(sql: visibleMessages + " ORDER BY m.seq DESC LIMIT 1"),
            arguments: [side.conversationId, side.clearedSeq, side.userId])
        let unread =
            try Int.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT COUNT(*) FROM message m WHERE m.conversation_id = ?1 AND m.seq > ?2 AND m.sender_id != ?3
                        AND NOT EXISTS (SELECT 1 FROM hidden_message h WHERE h.message_id = m.id AND h.user_id = ?3)
                        """), arguments: [side.conversationId, max(side.readSeq, side.clearedSeq), side.userId]) ?? 0
        return Conversation(
            id: side.conversationId, otherUserId: side.otherUserId, folder: side.folder, lastMessage: last?.contract,
            unreadCount: unread, updatedAt: side.updatedAt)
    }

    // MARK: - Changing one's side

    /// `user` read conversation `id` up to its newest message; the notifications of its
    /// messages are read with it. Nil when it is not theirs.
    func markConversationRead(_ id: String, of user: String, at now: Date) async throws -> Conversation? {
        try await database.tracedWrite { db in
            guard var side = try ConversationMemberRecord.find(id, of: user, in: db)
            else { return nil }
            let newest = try MessageRecord.newestSeq(in: id, db)
            side.readSeq = max(side.readSeq, newest)
            try side.update(db)
            try Self.readNotifications(of: id, for: user, at: now, in: db)
            return try Self.summary(of: side, in: db)
        }
    }

    /// `user` accepts a message request: the conversation moves to their inbox.
    func acceptConversation(_ id: String, of user: String) async throws -> Conversation? {
        try await database.tracedWrite { db in
            guard var side = try ConversationMemberRecord.find(id, of: user, in: db)
            else { return nil }
            side.folder = .inbox
            try side.update(db)
            return try Self.summary(of: side, in: db)
        }
    }

    /// `user` deletes conversation `id` for themselves: what was in it is gone from their view,
    /// and so is the conversation until a new message arrives (a request deleted is declined).
    /// The other person sees nothing change. False when it is not theirs.
    func deleteConversation(_ id: String, of user: String, at now: Date) async throws -> Bool {
        try await database.tracedWrite { db in
            guard var side = try ConversationMemberRecord.find(id, of: user, in: db)
            else { return false }
            let newest = try MessageRecord.newestSeq(in: id, db)
            side.clearedSeq = newest
            side.readSeq = max(side.readSeq, newest)
            side.hidden = true
            try side.update(db)
            try Self.readNotifications(of: id, for: user, at: now, in: db)
            return true
        }
    }

    /// `user` deletes message `id` for themselves (theirs or the other person's, in a
    /// conversation of theirs). False when they cannot see it.
    func deleteMessage(_ id: String, of user: String) async throws -> Bool {
        try await database.tracedWrite { db in
            guard let message = try MessageRecord.filter(MessageRecord.Columns.id == id).fetchOne(db),
                let side = try ConversationMemberRecord.find(message.conversationId, of: user, in: db),
                (message.seq ?? 0) > side.clearedSeq
            else { return false }
            try HiddenMessageRecord(messageId: id, userId: user, reason: .deleted).insert(db, onConflict: .ignore)
            return db.changesCount > 0
        }
    }

    /// Marks the unread message notifications of conversation `id` read for `user`.
    private static func readNotifications(of id: String, for user: String, at now: Date, in db: Database) throws {
        try db.cachedStatement(
            sql: """
                UPDATE notification SET read_at = ? WHERE user_id = ? AND read_at IS NULL
                AND type IN ('message', 'message_request') AND json_extract(data, '$.conversationId') = ?
                """
        ).execute(arguments: [now, user, id])
    }

    /// The direct messages that `records` (notifications) of type `message` or
    /// `message_request` are about, by notification id, each as its recipient sees it; the
    /// live stream carries them whole.
    static func directMessages(
        of records: [NotificationRecord], views: Views, in db: Database
    ) throws -> [String: DirectMessage] {
        let about = records.filter { $0.type == .message || $0.type == .messageRequest }
            .compactMap { record in record.contract.data["messageId"].map { (record, $0) } }
        guard !about.isEmpty else { return [:] }
        let found = try MessageRecord.filter(about.map(\.1).contains(MessageRecord.Columns.id)).fetchAll(db)
        var messages: [String: DirectMessage] = [:]
        for (record, messageID) in about {
            guard let message = found.first(where: { $0.id == messageID }) else { continue }
            messages[record.id] = try shown([message.contract], viewer: record.userId, views: views, in: db)[0]
        }
        return messages
    }

    // MARK: - Moderation

    /// Message `id`, the `around` messages either side of it in its conversation (whatever
    /// either person deleted for themselves: a report is about what was sent), and the two people.
    func context(ofMessage id: String, around: Int) async throws -> MessageContext? {
        try await database.tracedRead { db in
            guard let message = try MessageRecord.filter(MessageRecord.Columns.id == id).fetchOne(db),
                let conversation = try ConversationRecord.fetchOne(db, key: message.conversationId),
                let seq = message.seq
            else { return nil }
            let before = try MessageRecord.fetchAll(
                db.cachedStatement(
                    sql: "SELECT * FROM message WHERE conversation_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?"),
                arguments: [conversation.id, seq, around])
            let after = try MessageRecord.fetchAll(
                db.cachedStatement(
                    sql: "SELECT * FROM message WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?"),
                arguments: [conversation.id, seq, around])
            return MessageContext(
                message: message.contract, context: (before.reversed() + [message] + after).map(\.contract),
                participants: conversation.participants)
        }
    }

    // MARK: - Erasure

    /// `user.deleted`: the messages they sent (and the notifications that quote them) and their
    /// side of every conversation go; the other person keeps their own messages, and a
    /// conversation nobody is left in goes.
    static func eraseMessages(of userID: String, in db: Database) throws {
        try MessageRecord.filter(MessageRecord.Columns.senderId == userID).deleteAll(db)
        try NotificationRecord.filter(
            NotificationRecord.Columns.actorId == userID
                && [NotificationType.message, .messageRequest].contains(NotificationRecord.Columns.type)
        ).deleteAll(db)
        try ConversationMemberRecord.all().of(userID).deleteAll(db)
        try HiddenMessageRecord.filter(Column("user_id") == userID).deleteAll(db)
        try db.execute(
            sql: """
                DELETE FROM conversation WHERE (first_user_id = ?1 OR second_user_id = ?1)
                AND NOT EXISTS (SELECT 1 FROM conversation_member s WHERE s.conversation_id = conversation.id)
                """, arguments: [userID])
    }
}

extension AlertsStore {
    /// Message `id` as moderation judges it; with a `viewer`, only for one of its
    /// conversation's two people.
    func moderationSubject(message id: String, viewer: String?) async throws -> ModerationSubject? {
        try await database.tracedRead { db in
            guard let message = try MessageRecord.filter(MessageRecord.Columns.id == id).fetchOne(db),
                let conversation = try ConversationRecord.fetchOne(db, key: message.conversationId),
                viewer.map(conversation.participants.contains) ?? true
            else { return nil }
            return ModerationSubject(
                type: .message, id: id, ownerId: message.senderId, text: message.text,
                mediaIds: message.mediaId.map { [$0] } ?? [], createdAt: message.createdAt)
        }
    }
}
