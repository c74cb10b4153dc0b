import Foundation
import GRDB
import ServiceKit

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

    enum Columns: String, ColumnExpression {
        case status
        case userId = "user_id"
        case productId = "product_id"
        case expiresAt = "expires_at"
        case eventAt = "event_at"
        case updatedAt = "updated_at"
    }
}
