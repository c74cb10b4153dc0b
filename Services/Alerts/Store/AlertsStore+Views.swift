import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// What alerts' lists carry beside their ids, from the service's own copies of profiles and
/// media (kept by auth's and media's events): the person behind each notification, the other
/// person of each conversation, each message's photo or video. No call to another service per
/// page; the live stream carries the same.
extension AlertsStore {
    /// The people of `ids` that the copy of profiles holds, by id: a deleted account as such.
    /// A message's sender and recipient are read here before auth is asked (only for those
    /// the copy does not hold yet, just signed up): two internal calls a message cost auth
    /// more CPU than the message cost alerts.
    func copiedProfiles(_ ids: [String]) async throws -> [String: ProfileMirrorRecord] {
        try await database.tracedRead { db in try ProfileMirror.profiles(ids, in: db) }
    }

    /// `records` with the person whose action made each.
    static func shown(_ records: [NotificationRecord], views: Views, in db: Database) throws -> [AppNotification] {
        let actors = try views.people(records.compactMap(\.actorId), in: db)
        return records.map { record in
            var notification = record.contract
            notification.actor = record.actorId.flatMap { actors[$0] }
            return notification
        }
    }

    /// `messages` as `viewer` (one of the conversation's two) sees them, each photo or video
    /// as a view.
    static func shown(
        _ messages: [DirectMessage], viewer: String, views: Views, in db: Database
    ) throws
        -> [DirectMessage]
    {
        let media = try views.media(messages.compactMap(\.mediaId), viewer: viewer, in: db)
        return messages.map { message in
            var message = message
            message.media = message.mediaId.flatMap { media[$0] }
            return message
        }
    }

    /// `conversations` as `viewer` sees them: the other person, and the last message's media.
    static func shown(
        _ conversations: [Conversation], viewer: String, views: Views, in db: Database
    ) throws
        -> [Conversation]
    {
        let people = try views.people(conversations.map(\.otherUserId), in: db)
        let last = try shown(conversations.compactMap(\.lastMessage), viewer: viewer, views: views, in: db)
        let lastByID = Dictionary(last.map { ($0.id, $0) }) { first, _ in first }
        return conversations.map { conversation in
            var conversation = conversation
            conversation.other = people[conversation.otherUserId]
            conversation.lastMessage = conversation.lastMessage.flatMap { lastByID[$0.id] }
            return conversation
        }
    }
}
