import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `spot_tag`: one tag of a spot, keyed for "spots tagged X, newest first".
struct SpotTagRecord: ServiceRecord {
    static let databaseTableName = "spot_tag"

    var spotId: String
    var tag: String
    /// The spot's creation time, the order of a tag's list.
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case tag
        case spotId = "spot_id"
    }
}
