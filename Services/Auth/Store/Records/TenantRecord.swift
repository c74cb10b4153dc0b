import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `tenant`: an organisation whose customers sign in with PINs. Its API key is
/// stored as a SHA-256 (the key is 256 random bits, so a fast hash is enough).
struct TenantRecord: ServiceRecord {
    static let databaseTableName = "tenant"

    var id: String
    var name: String
    var apiKeyHash: String
    var status: Tenant.Status
    var createdAt: Date
    var updatedAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case apiKeyHash = "api_key_hash"
    }

    var tenant: Tenant { Tenant(id: id, name: name, status: status, createdAt: createdAt) }
}
