import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `responder_position`: where a tenant's user last was, from their last
/// `GET /v1/alerts/nearby`. Goes with the account.
struct ResponderPositionRecord: ServiceRecord {
    static let databaseTableName = "responder_position"

    var userId: String
    var tenantId: String
    var latitude: Double
    var longitude: Double
    var at: Date
}

extension ResponderPositionRecord {
    /// Inserts or replaces the user's position with a statement the connection keeps (every
    /// poll of `/nearby` records one).
    func upsertPrepared(_ db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO responder_position (user_id, tenant_id, latitude, longitude, at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (user_id) DO UPDATE SET
                  tenant_id = excluded.tenant_id, latitude = excluded.latitude, longitude = excluded.longitude,
                  at = excluded.at
                """
        ).execute(arguments: [userId, tenantId, latitude, longitude, at])
    }
}
