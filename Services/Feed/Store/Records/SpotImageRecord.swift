import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `spot_image`: one of the creator's photos of a spot, in order.
struct SpotImageRecord: ServiceRecord {
    static let databaseTableName = "spot_image"

    var spotId: String
    var position: Int
    var mediaId: String

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case position
        case spotId = "spot_id"
    }
}
