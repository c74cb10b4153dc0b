import Foundation

/// Where a challenge is, in order:
/// `created → creator_uploading → creator_ready → opponent_uploading → both_ready → voting →
/// completed`, or `expired` (its deadline passed before both clips were ready) or `cancelled`
/// (by a participant, before both clips were ready). A rejected clip moves the challenge back
/// one step (`creator_uploading → created`, `opponent_uploading → creator_ready`) so that
/// its owner can attach another.
public enum ChallengeStatus: String, Codable, Sendable, CaseIterable {
    case created
    case creatorUploading = "creator_uploading"
    case creatorReady = "creator_ready"
    case opponentUploading = "opponent_uploading"
    case bothReady = "both_ready"
    case voting
    case completed
    case expired
    case cancelled
}

/// A clip's state, as the seed names it.
public enum ChallengeClipStatus: String, Codable, Sendable, CaseIterable {
    case pendingUpload = "pending_upload"
    case processing
    case ready
    case rejected
}

/// The challenge's rules.
public struct ChallengeRules: Codable, Sendable, Equatable {
    /// Seconds, 1–15 (default 15): a clip may last this long, with the seed's half second of
    /// tolerance.
    public var maxDuration: Int?
    /// The trick to land, up to 80 characters.
    public var trick: String?
    /// The spot it is skated at.
    public var spotId: String?

    public init(maxDuration: Int? = nil, trick: String? = nil, spotId: String? = nil) {
        self.maxDuration = maxDuration
        self.trick = trick
        self.spotId = spotId
    }
}

/// `POST /v1/challenges`.
public struct CreateChallengeRequest: Codable, Sendable {
    /// The user challenged (not the caller, not blocked either way).
    public var opponent: String
    public var rules: ChallengeRules?
    /// When the challenge expires unless both clips are ready: 1 hour to 14 days ahead
    /// (default `feed.challenges.answerHours`).
    public var deadline: Date?
    /// Where it is skated, for "open for voting near me" (a spot's place when `rules.spotId`
    /// names one and this is absent).
    public var latitude: Double?
    public var longitude: Double?

    public init(
        opponent: String, rules: ChallengeRules? = nil, deadline: Date? = nil, latitude: Double? = nil,
        longitude: Double? = nil
    ) {
        self.opponent = opponent
        self.rules = rules
        self.deadline = deadline
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// `PUT /v1/challenges/{id}/clip`: a `challenge_clip` upload of the caller's.
public struct AttachClipRequest: Codable, Sendable {
    public var mediaId: String

    public init(mediaId: String) {
        self.mediaId = mediaId
    }
}

/// `PUT /v1/challenges/{id}/vote`: the participant voted for.
public struct ChallengeVoteRequest: Codable, Sendable {
    /// The creator's or the opponent's user id.
    public var votedFor: String

    public init(votedFor: String) {
        self.votedFor = votedFor
    }
}

/// One participant's clip.
public struct ChallengeClip: Codable, Sendable, Equatable {
    public var userId: String
    public var status: ChallengeClipStatus
    /// Shown to its owner always; to the opponent once ready; to voters once voting opened.
    public var mediaId: String?
    /// The bytes (`GET`, signed in) and a presigned URL to fetch them without a token.
    public var videoUrl: String?
    public var presignUrl: String?
    /// The poster frame.
    public var thumbnailUrl: String?
    /// Seconds, from the container.
    public var duration: Double?
    public var uploadedAt: Date?
    public var rejectionReason: String?
    /// The clip as a view (size, placeholder, poster and playback URLs that need no token),
    /// when the reader may play it.
    public var media: MediaView?

    enum CodingKeys: String, CodingKey {
        case userId, status, mediaId, videoUrl, presignUrl, thumbnailUrl, duration, uploadedAt, rejectionReason
        case media
    }

    public init(
        userId: String, status: ChallengeClipStatus, mediaId: String? = nil, duration: Double? = nil,
        uploadedAt: Date? = nil, rejectionReason: String? = nil
    ) {
        self.userId = userId
        self.status = status
        self.mediaId = mediaId
        self.videoUrl = mediaId.map { "/v1/media/\($0)/content" }
        self.presignUrl = mediaId.map { "/v1/media/\($0)/url" }
        self.thumbnailUrl = mediaId.map { "/v1/media/\($0)/poster" }
        self.duration = duration
        self.uploadedAt = uploadedAt
        self.rejectionReason = rejectionReason
    }
}

/// The result, computed once at the voting deadline.
public struct ChallengeResult: Codable, Sendable, Equatable {
    /// Nil for a draw (equal votes, none included).
    public var winner: String?
    public var creatorVotes: Int
    public var opponentVotes: Int
    public var draw: Bool

    public init(winner: String?, creatorVotes: Int, opponentVotes: Int) {
        self.winner = winner
        self.creatorVotes = creatorVotes
        self.opponentVotes = opponentVotes
        self.draw = winner == nil
    }
}

/// The voting phase: tallies stay hidden until the result.
public struct ChallengeVoting: Codable, Sendable, Equatable {
    public var deadline: Date
    /// The caller's vote, while it can change and after.
    public var myVote: String?
    public var result: ChallengeResult?

    public init(deadline: Date, myVote: String? = nil, result: ChallengeResult? = nil) {
        self.deadline = deadline
        self.myVote = myVote
        self.result = result
    }
}

/// A challenge as its reader may see it: participants see it whole from the start; anyone else
/// (not blocked by either) only once voting opened.
public struct Challenge: Codable, Sendable, Equatable {
    public var id: String
    public var createdBy: String
    public var opponent: String
    public var participants: [String]
    public var status: ChallengeStatus
    public var rules: ChallengeRules
    /// Keyed by participant, as the seed's `clips` map.
    public var clips: [String: ChallengeClip]
    public var voting: ChallengeVoting?
    public var deadline: Date
    public var latitude: Double?
    public var longitude: Double?
    /// Metres from the queried point (lists near a point only).
    public var distanceM: Double?
    public var createdAt: Date
    public var updatedAt: Date
    /// The participants as views, in `participants` order: a challenge card's two people.
    public var people: [PersonView]?

    enum CodingKeys: String, CodingKey {
        case id, createdBy, opponent, participants, status, rules, clips, voting, deadline, latitude, longitude
        case distanceM, createdAt, updatedAt, people
    }

    public init(
        id: String, createdBy: String, opponent: String, status: ChallengeStatus, rules: ChallengeRules,
        clips: [String: ChallengeClip], voting: ChallengeVoting?, deadline: Date, latitude: Double?,
        longitude: Double?, distanceM: Double? = nil, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.createdBy = createdBy
        self.opponent = opponent
        self.participants = [createdBy, opponent]
        self.status = status
        self.rules = rules
        self.clips = clips
        self.voting = voting
        self.deadline = deadline
        self.latitude = latitude
        self.longitude = longitude
        self.distanceM = distanceM
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// `GET /v1/challenges/stats/{userId}`: the seed's `stats`, updated with each result.
public struct ChallengeStats: Codable, Sendable, Equatable {
    public var userId: String
    /// 3 a win, 1 a draw, 0 a loss.
    public var points: Int
    public var wins: Int
    public var losses: Int
    public var draws: Int
    /// Wins in a row, now; a loss or a draw ends it.
    public var streak: Int
    public var bestStreak: Int
    /// Spots checked in at, each once.
    public var spotsUnlocked: Int

    public init(
        userId: String, points: Int, wins: Int, losses: Int, draws: Int, streak: Int, bestStreak: Int,
        spotsUnlocked: Int = 0
    ) {
        self.spotsUnlocked = spotsUnlocked
        self.userId = userId
        self.points = points
        self.wins = wins
        self.losses = losses
        self.draws = draws
        self.streak = streak
        self.bestStreak = bestStreak
    }
}

// MARK: - Events

/// A user as an event names them: id and the display name at the time.
public struct EventActor: Codable, Sendable, Equatable {
    public var userId: String
    public var displayName: String

    public init(userId: String, displayName: String) {
        self.userId = userId
        self.displayName = displayName
    }
}

/// `challenge.created`: `creator` challenged `opponentId` (activity `challenge_received`).
public struct ChallengeCreated: DomainEvent, Equatable {
    public static let eventType: EventType = "challenge.created"
    public var challengeId: String
    public var creator: EventActor
    public var opponentId: String
    public var trick: String?
    public var deadline: Date

    public init(challengeId: String, creator: EventActor, opponentId: String, trick: String?, deadline: Date) {
        self.challengeId = challengeId
        self.creator = creator
        self.opponentId = opponentId
        self.trick = trick
        self.deadline = deadline
    }
}

/// `challenge.accepted`: the opponent attached their clip (activity `challenge_accepted` for
/// the creator).
public struct ChallengeAccepted: DomainEvent, Equatable {
    public static let eventType: EventType = "challenge.accepted"
    public var challengeId: String
    public var opponent: EventActor
    public var creatorId: String

    public init(challengeId: String, opponent: EventActor, creatorId: String) {
        self.challengeId = challengeId
        self.opponent = opponent
        self.creatorId = creatorId
    }
}

/// `challenge.clip_ready`: media validated `uploader`'s clip; the other participant can
/// watch it (activity `opponent_uploaded` for `toUserId`).
public struct ChallengeClipReady: DomainEvent, Equatable {
    public static let eventType: EventType = "challenge.clip_ready"
    public var challengeId: String
    public var uploader: EventActor
    public var toUserId: String

    public init(challengeId: String, uploader: EventActor, toUserId: String) {
        self.challengeId = challengeId
        self.uploader = uploader
        self.toUserId = toUserId
    }
}

/// `challenge.voting_started`: both clips are ready and voting is open until `votingDeadline`
/// (activity `voting_started` for both participants).
public struct ChallengeVotingStarted: DomainEvent, Equatable {
    public static let eventType: EventType = "challenge.voting_started"
    public var challengeId: String
    public var participants: [EventActor]
    public var votingDeadline: Date

    public init(challengeId: String, participants: [EventActor], votingDeadline: Date) {
        self.challengeId = challengeId
        self.participants = participants
        self.votingDeadline = votingDeadline
    }
}

/// `challenge.completed`: the result (activity `challenge_won` / `challenge_lost`, or
/// `result_posted` to both for a draw).
public struct ChallengeCompleted: DomainEvent, Equatable {
    public static let eventType: EventType = "challenge.completed"
    public var challengeId: String
    public var participants: [EventActor]
    public var result: ChallengeResult

    public init(challengeId: String, participants: [EventActor], result: ChallengeResult) {
        self.challengeId = challengeId
        self.participants = participants
        self.result = result
    }
}
