import Foundation
import GRDB
import ServiceKit

/// A row of `recovery_token`: one entry of a user's recovery-token ledger (+n per purchase,
/// whose id is the purchase's, so a purchase is credited once). The balance is the sum.
struct RecoveryTokenRecord: ServiceRecord {
    static let databaseTableName = "recovery_token"

    var id: String
    var userId: String
    var delta: Int
    /// `purchased` (later also `used`, `milestone`).
    var reason: String
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case delta
        case userId = "user_id"
    }
}
