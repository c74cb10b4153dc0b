import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `challenge_clip`: a participant's `challenge_clip` upload and media's verdict on it.
struct ChallengeClipRecord: ServiceRecord {
    static let databaseTableName = "challenge_clip"

    var challengeId: String
    var userId: String
    var mediaId: String
    /// `processing` until media says `ready` or `rejected`.
    var state: ChallengeClipStatus
    var durationMs: Int?
    var uploadedAt: Date
    var rejectionReason: String?
    /// When moderation hid it from everyone but its owner: its challenge cannot be voted on
    /// meanwhile.
    var hiddenAt: Date?

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case state
        case challengeId = "challenge_id"
        case userId = "user_id"
        case mediaId = "media_id"
        case hiddenAt = "hidden_at"
    }

    /// The clip; its media only when the reader may play it.
    func contract(showingMedia: Bool) -> ChallengeClip {
        ChallengeClip(
            userId: userId, status: state, mediaId: showingMedia ? mediaId : nil,
            duration: durationMs.map { Double($0) / 1000 }, uploadedAt: uploadedAt, rejectionReason: rejectionReason)
    }
}
extension ChallengeClipStatus: DatabaseValueConvertible {}

extension ChallengeClipRecord {
    /// Read by hand rather than through `Decodable`, as ``ChallengeRecord`` is: two per listed
    /// challenge.
    init(row: Row) throws {
        challengeId = try row.decode(forColumn: "challenge_id")
        userId = try row.decode(forColumn: "user_id")
        mediaId = try row.decode(forColumn: "media_id")
        state = try row.decode(forColumn: "state")
        durationMs = try row.decode(forColumn: "duration_ms")
        uploadedAt = try row.decode(forColumn: "uploaded_at")
        rejectionReason = try row.decode(forColumn: "rejection_reason")
        hiddenAt = try row.decode(forColumn: "hidden_at")
    }
}
