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
