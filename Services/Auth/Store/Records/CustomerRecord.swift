import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `customer`: a tenant's customer, with both PINs as peppered Argon2id hashes.
/// The customer's sessions and tokens carry `userId` (a `user` row without email or password).
struct CustomerRecord: ServiceRecord {
    static let databaseTableName = "customer"

    var userId: String
    var tenantId: String
    var customerRef: String
    var pinHash: String
    var duressPinHash: String
    var createdAt: Date
    var pinsUpdatedAt: Date

    /// The customer reference of `userID` (a PIN customer's session check reads it on every
    /// request), with a statement the connection keeps.
    static func reference(of userID: String, in db: Database) throws -> String? {
        try String.fetchOne(
            db.cachedStatement(sql: "SELECT customer_ref FROM customer WHERE user_id = ?"), arguments: [userID])
    }

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case tenantId = "tenant_id"
        case customerRef = "customer_ref"
    }

    var customer: Customer {
        Customer(customerRef: customerRef, userId: userId, createdAt: createdAt, pinsUpdatedAt: pinsUpdatedAt)
    }
}

extension DerivableRequest<CustomerRecord> {
    /// The customer with this reference in this tenant.
    func matching(tenant: String, reference: String) -> Self {
        filter(CustomerRecord.Columns.tenantId == tenant && CustomerRecord.Columns.customerRef == reference)
    }
}
