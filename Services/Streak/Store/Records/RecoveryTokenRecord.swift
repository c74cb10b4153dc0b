import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `recovery_token`: one entry of a user's recovery-token ledger. Ids name what made
/// it (the purchase's id, `earned:<streak>:<day>:<user>`, `monthly:<user>:<YYYY-MM>`,
/// `used:<streak>:<day>`), so each is recorded once. The balance is the sum.
struct RecoveryTokenRecord: ServiceRecord {
    static let databaseTableName = "recovery_token"

    var id: String
    var userId: String
    var delta: Int
    /// A ``RecoveryTransactionType`` raw value.
    var reason: String
    /// The streak that earned or used it.
    var streakId: String?
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case delta, reason
        case userId = "user_id"
        case createdAt = "created_at"
    }
}
