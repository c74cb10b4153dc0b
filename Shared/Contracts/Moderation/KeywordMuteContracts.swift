import Foundation

/// `POST /v1/mutes/words`: a word or phrase to keep out of one's feeds, search and
/// notifications, for good or until `until`.
public struct KeywordMuteCreate: Codable, Sendable {
    /// 1 to 100 characters with at least one letter or digit.
    public var phrase: String
    /// When the mute ends (in the future); absent: until removed.
    public var until: Date?

    public init(phrase: String, until: Date? = nil) {
        self.phrase = phrase
        self.until = until
    }
}

/// A keyword mute: matched as whole words, whatever the letter case and accents.
public struct KeywordMute: Codable, Sendable, Equatable {
    public var id: String
    /// As the user typed it (trimmed).
    public var phrase: String
    public var until: Date?
    public var createdAt: Date

    public init(id: String, phrase: String, until: Date?, createdAt: Date) {
        self.id = id
        self.phrase = phrase
        self.until = until
        self.createdAt = createdAt
    }
}

/// One muted phrase as other services apply it.
public struct MutedPhrase: Codable, Sendable, Equatable {
    public var phrase: String
    public var until: Date?

    public init(phrase: String, until: Date?) {
        self.phrase = phrase
        self.until = until
    }
}

/// `keyword_mutes.changed`: all of a user's keyword mutes as they now stand. `revision` grows
/// with every change of that user's mutes; a copy keeps the highest it has seen.
public struct KeywordMutesChanged: DomainEvent, Equatable {
    public static let eventType: EventType = "keyword_mutes.changed"
    public var userId: String
    public var mutes: [MutedPhrase]
    public var revision: Int

    public init(userId: String, mutes: [MutedPhrase], revision: Int) {
        self.userId = userId
        self.mutes = mutes
        self.revision = revision
    }
}
