import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `challenge`: who, the rules, where it stands, and its result once there is one.
/// Participants' names are those at its creation (events carry them).
struct ChallengeRecord: ServiceRecord {
    static let databaseTableName = "challenge"

    var id: String
    var creatorId: String
    var opponentId: String
    var creatorName: String
    var opponentName: String
    var status: ChallengeStatus
    /// Seconds.
    var maxDuration: Int
    var trick: String?
    var spotId: String?
    var latitude: Double?
    var longitude: Double?
    /// Both clips must be ready by then, or the challenge expires.
    var deadline: Date
    var votingDeadline: Date?
    var votingMs: Int64?
    var winnerId: String?
    var creatorVotes: Int?
    var opponentVotes: Int?
    var createdAt: Date
    var updatedAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case id, status
        case creatorId = "creator_id"
        case opponentId = "opponent_id"
        case createdAt = "created_at"
    }

    var participants: [String] { [creatorId, opponentId] }

    func isParticipant(_ user: String) -> Bool { user == creatorId || user == opponentId }

    /// The other participant.
    func other(than user: String) -> String { user == creatorId ? opponentId : creatorId }

    func party(_ user: String) -> EventActor {
        EventActor(userId: user, displayName: user == creatorId ? creatorName : opponentName)
    }

    var parties: [EventActor] { participants.map(party) }

    var result: ChallengeResult? {
        guard status == .completed, let creatorVotes, let opponentVotes else { return nil }
        return ChallengeResult(winner: winnerId, creatorVotes: creatorVotes, opponentVotes: opponentVotes)
    }

    /// Voting opened (and may have ended): both clips are everyone's to play.
    var votingOpened: Bool { status == .voting || status == .completed }

    /// Whether `viewer` may play `clip` (who may see the challenge at all is the store's
    /// check): its owner always; the other participant once it is ready; anyone once voting
    /// opened. A clip moderation hid is played by its owner only.
    func shows(_ clip: ChallengeClipRecord, to viewer: String) -> Bool {
        clip.userId == viewer || (clip.hiddenAt == nil && (votingOpened || clip.state == .ready))
    }

    /// The challenge as `viewer` sees it, with the participants of `people` and the clips of
    /// `media` that `viewer` may play (``shows(_:to:)``).
    func contract(
        viewer: String, clips: [ChallengeClipRecord], myVote: String?, distance: Double? = nil,
        people: [String: PersonView] = [:], media: [String: MediaView] = [:]
    ) -> Challenge {
        var shown: [String: ChallengeClip] = [:]
        for user in participants {
            guard let clip = clips.first(where: { $0.userId == user }) else {
                shown[user] = ChallengeClip(userId: user, status: .pendingUpload)
                continue
            }
            let visible = shows(clip, to: viewer)
            shown[user] = clip.contract(showingMedia: visible)
            if visible { shown[user]?.media = media[clip.mediaId] }
        }
        var challenge = Challenge(
            id: id, createdBy: creatorId, opponent: opponentId, status: status,
            rules: ChallengeRules(maxDuration: maxDuration, trick: trick, spotId: spotId), clips: shown,
            voting: votingDeadline.map { ChallengeVoting(deadline: $0, myVote: myVote, result: result) },
            deadline: deadline, latitude: latitude, longitude: longitude, distanceM: distance, createdAt: createdAt,
            updatedAt: updatedAt)
        challenge.people = participants.compactMap { people[$0] }
        return challenge
    }
}

extension DerivableRequest<ChallengeRecord> {
    /// Challenges `user` takes part in.
    func involving(_ user: String) -> Self {
        filter(ChallengeRecord.Columns.creatorId == user || ChallengeRecord.Columns.opponentId == user)
    }
}
extension ChallengeStatus: DatabaseValueConvertible {}

extension ChallengeRecord {
    /// Read by hand rather than through `Decodable`: lists open for voting read many per page,
    /// and the decoder's keyed container was a quarter of feed's CPU for one.
    init(row: Row) throws {
        id = try row.decode(forColumn: "id")
        creatorId = try row.decode(forColumn: "creator_id")
        opponentId = try row.decode(forColumn: "opponent_id")
        creatorName = try row.decode(forColumn: "creator_name")
        opponentName = try row.decode(forColumn: "opponent_name")
        status = try row.decode(forColumn: "status")
        maxDuration = try row.decode(forColumn: "max_duration")
        trick = try row.decode(forColumn: "trick")
        spotId = try row.decode(forColumn: "spot_id")
        latitude = try row.decode(forColumn: "latitude")
        longitude = try row.decode(forColumn: "longitude")
        deadline = try row.decode(forColumn: "deadline")
        votingDeadline = try row.decode(forColumn: "voting_deadline")
        votingMs = try row.decode(forColumn: "voting_ms")
        winnerId = try row.decode(forColumn: "winner_id")
        creatorVotes = try row.decode(forColumn: "creator_votes")
        opponentVotes = try row.decode(forColumn: "opponent_votes")
        createdAt = try row.decode(forColumn: "created_at")
        updatedAt = try row.decode(forColumn: "updated_at")
    }
}
