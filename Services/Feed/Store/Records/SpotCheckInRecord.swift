import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `spot_check_in`: a user was at a spot, at most once a (UTC) day.
struct SpotCheckInRecord: ServiceRecord {
    static let databaseTableName = "spot_check_in"

    var id: String
    var spotId: String
    var userId: String
    /// `yyyy-MM-dd` in UTC.
    var localDay: String
    var distanceM: Double
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case spotId = "spot_id"
        case userId = "user_id"
        case localDay = "local_day"
    }

    func contract(firstVisit: Bool) -> CheckIn {
        CheckIn(id: id, spotId: spotId, firstVisit: firstVisit, distanceM: distanceM, createdAt: createdAt)
    }
}
