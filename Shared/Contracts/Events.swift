import Foundation

/// The name of an event type, such as `post.hidden`. Names are `<noun>.<past-tense verb>`.
public struct EventType: RawRepresentable, Hashable, Codable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
    public var description: String { rawValue }
}

/// A payload that travels through the outbox. Each conforming type names its event type;
/// who receives it is declared once, in ``EventCatalog``.
public protocol DomainEvent: Codable, Sendable {
    /// The type name this payload is sent under.
    static var eventType: EventType { get }

    /// Whether delivery must not start the moment the event is written. Delivery work right
    /// after a request (reading the outbox, calling the subscriber) slows the answer a little;
    /// for an event whose very existence must not show in timing (a duress sign-in), delivery
    /// waits for the dispatcher's next poll (at most half a second), unrelated to the request.
    static var deliversOnNextPoll: Bool { get }
}

extension DomainEvent {
    public static var deliversOnNextPoll: Bool { false }
}

/// The name of one of several events that share a payload's shape: the `Kind` of a generic
/// payload (``AccountSanction``, ``BlockChange``), each kind its own event type.
public protocol EventName: Sendable {
    static var eventType: EventType { get }
}

/// What is sent to `POST /internal/events` on a subscriber.
public struct EventEnvelope<Payload: Codable & Sendable>: Codable, Sendable {
    /// Unique per event; subscribers apply each id at most once.
    public var id: UUID
    /// The event type name.
    public var type: EventType
    /// The service that wrote the event (checked against the caller's certificate).
    public var source: ServiceName
    /// When the change happened, by the producer's clock.
    public var occurredAt: Date
    /// The event body.
    public var payload: Payload

    enum CodingKeys: String, CodingKey {
        case id, type, source, occurredAt, payload
    }

    /// The envelope without its payload.
    public var header: EventHeader { EventHeader(id: id, type: type, source: source, occurredAt: occurredAt) }

    /// Creates an envelope.
    public init(id: UUID, type: EventType, source: ServiceName, occurredAt: Date, payload: Payload) {
        self.id = id
        self.type = type
        self.source = source
        self.occurredAt = occurredAt
        self.payload = payload
    }
}

/// The envelope without its payload, decoded first to find the handler.
public struct EventHeader: Codable, Sendable, Equatable {
    public var id: UUID
    public var type: EventType
    public var source: ServiceName
    public var occurredAt: Date

    enum CodingKeys: String, CodingKey {
        case id, type, source, occurredAt
    }

    public init(id: UUID, type: EventType, source: ServiceName, occurredAt: Date) {
        self.id = id
        self.type = type
        self.source = source
        self.occurredAt = occurredAt
    }
}

/// Every event type Pinhole sends and the services that receive it.
///
/// The outbox delivers an event to exactly the services listed here; a subscriber refuses an
/// event type it is not listed for. Producer and consumer both compile against this table.
public enum EventCatalog {
    /// Subscribers per event type.
    public static let subscribers: [EventType: [ServiceName]] = [
        MediaAttached.eventType: [.media],
        MediaSharingEnded.eventType: [.media],
        MediaWithdrawn.eventType: [.media],
        FriendRequestSent.eventType: [.alerts],
        FriendRequestAccepted.eventType: [.alerts],
        StreakAtRisk.eventType: [.alerts],
        StreakBroken.eventType: [.alerts],
        StreakSnapped.eventType: [.alerts],
        StreakNudged.eventType: [.alerts],
        StreakWindowOpened.eventType: [.alerts],
        StreakWindowClosing.eventType: [.alerts],
        StreakMilestoneReached.eventType: [.alerts],
        ContentHidden.eventType: [.feed, .streak, .alerts],
        UserBlocked.eventType: [.auth, .feed, .streak, .alerts],
        UserUnblocked.eventType: [.auth, .feed, .streak, .alerts],
        DuressRaised.eventType: [.alerts, .media],
        DuressCleared.eventType: [.alerts],
        UserDeleted.eventType: [.media, .feed, .streak, .alerts, .moderation],
        RecoveryTokensPurchased.eventType: [.streak],
        MediaReady.eventType: [.feed, .streak],
        MediaRejected.eventType: [.feed, .streak],
        SessionEnded.eventType: [.alerts],
        ChallengeCreated.eventType: [.alerts],
        ChallengeAccepted.eventType: [.alerts],
        ChallengeClipReady.eventType: [.alerts],
        ChallengeVotingStarted.eventType: [.alerts],
        ChallengeCompleted.eventType: [.alerts],
        SpotUnlocked.eventType: [.alerts],
        SpotNearby.eventType: [.alerts],
        UserFollowed.eventType: [.alerts],
        ProfileCountsChanged.eventType: [.auth],
        PostLiked.eventType: [.alerts],
        PostReplied.eventType: [.alerts],
        PostReposted.eventType: [.alerts],
        PostMentioned.eventType: [.alerts],
        KeywordMutesChanged.eventType: [.feed, .alerts],
        MediaDetached.eventType: [.media],
        UserMuted.eventType: [.auth, .feed, .alerts],
        UserUnmuted.eventType: [.auth, .feed, .alerts],
        ContentRestored.eventType: [.feed, .streak, .media, .alerts],
        ContentRemoved.eventType: [.feed, .streak, .alerts, .media],
        UserWarned.eventType: [.alerts],
        UserSuspended.eventType: [.auth, .alerts, .streak],
        UserBanned.eventType: [.auth, .streak],
        UserReinstated.eventType: [.auth, .alerts],
        AppealDecided.eventType: [.alerts],
        MediaHeld.eventType: [.moderation],
        ProfileChanged.eventType: [.feed, .streak, .alerts, .moderation],
        MediaDescribed.eventType: [.auth, .feed, .streak, .alerts, .moderation],
    ]

    /// Who may produce each event type (the subscriber checks the sender's certificate against
    /// the envelope's `source`, and the source against this table).
    public static let producers: [EventType: Set<ServiceName>] = [
        MediaAttached.eventType: [.feed, .streak, .auth, .alerts],
        MediaSharingEnded.eventType: [.streak],
        MediaWithdrawn.eventType: [.streak],
        FriendRequestSent.eventType: [.streak],
        FriendRequestAccepted.eventType: [.streak],
        StreakAtRisk.eventType: [.streak],
        StreakBroken.eventType: [.streak],
        StreakSnapped.eventType: [.streak],
        StreakNudged.eventType: [.streak],
        StreakWindowOpened.eventType: [.streak],
        StreakWindowClosing.eventType: [.streak],
        StreakMilestoneReached.eventType: [.streak],
        ContentHidden.eventType: [.moderation],
        UserBlocked.eventType: [.moderation],
        UserUnblocked.eventType: [.moderation],
        DuressRaised.eventType: [.auth],
        DuressCleared.eventType: [.auth],
        UserDeleted.eventType: [.auth],
        RecoveryTokensPurchased.eventType: [.auth],
        MediaReady.eventType: [.media],
        MediaRejected.eventType: [.media],
        SessionEnded.eventType: [.auth],
        ChallengeCreated.eventType: [.feed],
        ChallengeAccepted.eventType: [.feed],
        ChallengeClipReady.eventType: [.feed],
        ChallengeVotingStarted.eventType: [.feed],
        ChallengeCompleted.eventType: [.feed],
        SpotUnlocked.eventType: [.feed],
        SpotNearby.eventType: [.feed],
        UserFollowed.eventType: [.feed],
        ProfileCountsChanged.eventType: [.feed],
        PostLiked.eventType: [.feed],
        PostReplied.eventType: [.feed],
        PostReposted.eventType: [.feed],
        PostMentioned.eventType: [.feed],
        KeywordMutesChanged.eventType: [.moderation],
        MediaDetached.eventType: [.feed, .auth, .streak],
        UserMuted.eventType: [.moderation],
        UserUnmuted.eventType: [.moderation],
        ContentRestored.eventType: [.moderation],
        ContentRemoved.eventType: [.moderation],
        UserWarned.eventType: [.moderation],
        UserSuspended.eventType: [.moderation],
        UserBanned.eventType: [.moderation],
        UserReinstated.eventType: [.moderation],
        AppealDecided.eventType: [.moderation],
        MediaHeld.eventType: [.media],
        ProfileChanged.eventType: [.auth],
        MediaDescribed.eventType: [.media],
    ]

    /// The services that receive `type`, or none.
    public static func subscribers(of type: EventType) -> [ServiceName] {
        subscribers[type] ?? []
    }
}
