import Foundation

/// A person as every list shows them: who they are, what they are called and their picture, and
/// (where the screen shows it) how the reader stands with them. A deleted account keeps its id
/// with `deleted` set and no name or picture: never a dangling id.
public struct PersonView: Codable, Sendable, Equatable {
    public var id: String
    public var username: String?
    /// Empty for a deleted account.
    public var displayName: String
    /// The avatar: its placeholder, its size and URLs that need no token.
    public var avatar: MediaView?
    /// The avatar's square thumbnail at `/v1/media/{id}/thumbnail` (with the token), as
    /// ``UserSummary`` has it.
    public var avatarURL: String?
    public var deleted: Bool
    /// How the reader stands with them, where a screen shows it; each service fills in what it
    /// knows (feed: follows; streak: friends; everyone: blocks and mutes).
    public var relation: PersonRelation?

    public init(
        id: String, username: String?, displayName: String, avatar: MediaView? = nil, deleted: Bool = false,
        relation: PersonRelation? = nil
    ) {
        self.id = id
        self.username = username
        self.displayName = displayName
        self.avatar = avatar
        self.avatarURL = avatar.flatMap { UserSummary.avatarURL(mediaId: $0.id) }
        self.deleted = deleted
        self.relation = relation
    }

    /// A person no longer there: the id, nothing else.
    public static func deletedAccount(_ id: String) -> PersonView {
        PersonView(id: id, username: nil, displayName: "", deleted: true)
    }
}

/// How the reader stands with a person. A field is left out where the service answering does
/// not know it (feed knows follows, streak knows friends).
public struct PersonRelation: Codable, Sendable, Equatable {
    public var following: Bool?
    public var followsYou: Bool?
    public var friend: Bool?
    /// The reader blocked them.
    public var blocked: Bool?
    /// The reader muted them.
    public var muted: Bool?

    public init(
        following: Bool? = nil, followsYou: Bool? = nil, friend: Bool? = nil, blocked: Bool? = nil,
        muted: Bool? = nil
    ) {
        self.following = following
        self.followsYou = followsYou
        self.friend = friend
        self.blocked = blocked
        self.muted = muted
    }
}
