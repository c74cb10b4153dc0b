import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `share_card`: a milestone card a user made of one of their streaks (the image is
/// their media), and where and when they last shared it.
struct ShareCardRecord: ServiceRecord, Equatable {
    static let databaseTableName = "share_card"

    var id: String
    var userId: String
    var streakId: String
    var mediaId: String
    var style: ShareCardStyle
    var count: Int
    var platform: SharePlatform?
    var sharedAt: Date?
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case streakId = "streak_id"
    }

    var contract: ShareCardShare {
        ShareCardShare(
            id: id, streakId: streakId, mediaId: mediaId, style: style, count: count, platform: platform,
            sharedAt: sharedAt, createdAt: createdAt)
    }
}

extension ShareCardStyle: DatabaseValueConvertible {}
extension SharePlatform: DatabaseValueConvertible {}
