import Foundation

/// Where a conversation sits for one of its two people: `inbox`, or `requests` when someone they
/// do not follow wrote first (until they accept or answer).
public enum MessageFolder: String, Codable, Sendable, CaseIterable {
    case inbox
    case requests
}

/// `POST /v1/messages` (to `recipientId`, opening the conversation if there is none) and
/// `POST /v1/messages/conversations/{id}/messages` (no `recipientId`): text, one of the
/// sender's processed photos or videos, or both.
public struct MessageDraft: Codable, Sendable, Equatable {
    public var recipientId: String?
    public var text: String?
    public var mediaId: String?

    public init(recipientId: String? = nil, text: String? = nil, mediaId: String? = nil) {
        self.recipientId = recipientId
        self.text = text
        self.mediaId = mediaId
    }
}

/// One direct message. `mediaId` is readable by both people of the conversation
/// (`GET /v1/media/{id}`) and nobody else.
public struct DirectMessage: Codable, Sendable, Equatable {
    public var id: String
    public var conversationId: String
    public var senderId: String
    public var text: String?
    public var mediaId: String?
    public var createdAt: Date
    /// The photo or video of `mediaId` as a view (size, placeholder, URLs that need no token).
    public var media: MediaView?

    public init(
        id: String, conversationId: String, senderId: String, text: String?, mediaId: String?, createdAt: Date
    ) {
        self.id = id
        self.conversationId = conversationId
        self.senderId = senderId
        self.text = text
        self.mediaId = mediaId
        self.createdAt = createdAt
    }
}

/// A one-to-one conversation as one of its two people sees it.
public struct Conversation: Codable, Sendable, Equatable {
    public var id: String
    /// The other person (their profile: `GET /v1/users/{id}`).
    public var otherUserId: String
    public var folder: MessageFolder
    /// The newest message this person sees (none after they deleted the conversation for themselves).
    public var lastMessage: DirectMessage?
    /// Messages from the other person newer than this person last read.
    public var unreadCount: Int
    /// When the conversation last changed for this person (their list is ordered by it).
    public var updatedAt: Date
    /// The other person as a view: the row's avatar and name.
    public var other: PersonView?

    public init(
        id: String, otherUserId: String, folder: MessageFolder, lastMessage: DirectMessage?, unreadCount: Int,
        updatedAt: Date
    ) {
        self.id = id
        self.otherUserId = otherUserId
        self.folder = folder
        self.lastMessage = lastMessage
        self.unreadCount = unreadCount
        self.updatedAt = updatedAt
    }
}

/// `GET /v1/messages/unread-count`: how many conversations in each folder have unread messages.
public struct MessagesUnread: Codable, Sendable, Equatable {
    public var inbox: Int
    public var requests: Int

    public init(inbox: Int, requests: Int) {
        self.inbox = inbox
        self.requests = requests
    }
}

/// `GET /internal/messages/{id}/context` on alerts, for moderation: a reported message and the
/// few messages either side of it in its conversation, nothing more of either person's messages.
public struct MessageContext: Codable, Sendable, Equatable {
    public var message: DirectMessage
    /// Oldest first, the reported message among them.
    public var context: [DirectMessage]
    /// The conversation's two people.
    public var participants: [String]

    public init(message: DirectMessage, context: [DirectMessage], participants: [String]) {
        self.message = message
        self.context = context
        self.participants = participants
    }
}
