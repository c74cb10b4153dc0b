import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `subscription`: a user's subscription to one product, as RevenueCat last said.
struct SubscriptionRecord: ServiceRecord {
    static let databaseTableName = "subscription"

    var userId: String
    var productId: String
    /// `active`, `cancelled` (premium until it expires), `expired` or `billing_retry`.
    var status: String
    var expiresAt: Date?
    /// The newest RevenueCat event applied, so an older one arriving late changes nothing.
    var eventAt: Date
    var updatedAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case status
        case userId = "user_id"
        case expiresAt = "expires_at"
    }
}
