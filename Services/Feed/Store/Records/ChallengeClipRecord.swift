import Contracts
import Foundation
import GRDB
import ServiceKit

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

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case state
        case challengeId = "challenge_id"
        case userId = "user_id"
        case mediaId = "media_id"
    }

    /// The clip; its media only when the reader may play it.
    func contract(showingMedia: Bool) -> ChallengeClip {
        ChallengeClip(
            userId: userId, status: state, mediaId: showingMedia ? mediaId : nil,
            duration: durationMs.map { Double($0) / 1000 }, uploadedAt: uploadedAt, rejectionReason: rejectionReason)
    }
}
extension ChallengeClipStatus: DatabaseValueConvertible {}
