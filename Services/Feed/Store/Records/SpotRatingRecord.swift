import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `spot_rating`: one user's 1–5 stars for a spot, changeable.
struct SpotRatingRecord: ServiceRecord {
    static let databaseTableName = "spot_rating"

    var spotId: String
    var userId: String
    var stars: Int
    var updatedAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case spotId = "spot_id"
        case userId = "user_id"
    }
}
