import Contracts
import Foundation
import GRDB

/// A row of `customer`: a tenant's customer, with both PINs as peppered Argon2id hashes.
/// The customer's sessions and tokens carry `userID` (a `user` row without email or password).
struct CustomerRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "customer"

    var userID: String
    var tenantID: String
    var customerRef: String
    var pinHash: String
    var duressPinHash: String
    var createdAt: Date
    var pinsUpdatedAt: Date

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case tenantID = "tenant_id"
        case customerRef = "customer_ref"
        case pinHash = "pin_hash"
        case duressPinHash = "duress_pin_hash"
        case createdAt = "created_at"
        case pinsUpdatedAt = "pins_updated_at"
    }

    var customer: Customer {
        Customer(customerRef: customerRef, userId: userID, createdAt: createdAt, pinsUpdatedAt: pinsUpdatedAt)
    }
}
