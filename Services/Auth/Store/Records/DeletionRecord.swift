import Foundation
import GRDB

/// A row of `deletion`: an account deletion, from the request until every service has
/// confirmed and the user row itself is gone.
struct DeletionRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "deletion"

    var id: String
    var userID: String
    /// The `user.deleted` event; its outstanding deliveries are the services yet to confirm.
    var eventID: String
    var requestedAt: Date
    var completedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id
        case userID = "user_id"
        case eventID = "event_id"
        case requestedAt = "requested_at"
        case completedAt = "completed_at"
    }
}
