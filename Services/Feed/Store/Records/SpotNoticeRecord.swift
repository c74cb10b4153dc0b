import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `spot_notice`: when a user was last told a spot was near them (`spot_nearby`), so
/// the same spot is not told again within `feed.spots.nearbyRepeatHours`.
struct SpotNoticeRecord: ServiceRecord {
    static let databaseTableName = "spot_notice"

    var userId: String
    var spotId: String
    var toldAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case spotId = "spot_id"
        case toldAt = "told_at"
    }
}
