import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Tenants, their customers and their customers' duress incidents.
struct TenantStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox

    // MARK: - Tenants

    func createTenant(_ tenant: TenantRecord) async throws {
        try await database.tracedWrite { db in try tenant.insert(db) }
    }

    func tenant(id: String) async throws -> TenantRecord? {
        try await database.tracedRead { db in try TenantRecord.fetchOne(db, key: id) }
    }

    func tenant(apiKeyHash: String) async throws -> TenantRecord? {
        try await database.tracedRead { db in
            try TenantRecord.filter(TenantRecord.Columns.apiKeyHash == apiKeyHash).fetchOne(db)
        }
    }

    func tenants(after position: TimePosition?, limit: Int) async throws -> [TenantRecord] {
        try await database.tracedRead { db in
            try TenantRecord.all().newestFirst(after: position, limit: limit).fetchAll(db)
        }
    }

    /// Applies `change` to the tenant and saves it; nil when there is no such tenant.
    func updateTenant(
        id: String, now: Date, _ change: @escaping @Sendable (inout TenantRecord) -> Void
    ) async throws -> TenantRecord? {
        try await database.tracedWrite { db in
            guard var tenant = try TenantRecord.fetchOne(db, key: id) else { return nil }
            change(&tenant)
            tenant.updatedAt = now
            try tenant.update(db)
            return tenant
        }
    }

    // MARK: - Customers

    /// Enrols a customer (a user row without email or password, and its PINs). A reference
    /// already used in the tenant is a unique-constraint failure, answered 409.
    func enrol(_ customer: CustomerRecord, user: UserRecord) async throws {
        try await database.tracedWrite { [outbox] db in
            try UserStore.insertAnnounced(user, outbox: outbox, in: db)
            try customer.insert(db)
        }
    }

    func customer(tenantID: String, customerRef: String) async throws -> CustomerRecord? {
        try await database.tracedRead { db in
            try CustomerRecord.all().matching(tenant: tenantID, reference: customerRef).fetchOne(db)
        }
    }

    func replacePins(
        tenantID: String, customerRef: String, pinHash: String, duressPinHash: String, now: Date
    ) async throws -> CustomerRecord? {
        try await database.tracedWrite { db in
            guard
                var customer = try CustomerRecord.all().matching(tenant: tenantID, reference: customerRef).fetchOne(db)
            else { return nil }
            (customer.pinHash, customer.duressPinHash, customer.pinsUpdatedAt) = (pinHash, duressPinHash, now)
            try customer.update(db)
            return customer
        }
    }

    // MARK: - Incidents

    func incidents(
        tenantID: String, openOnly: Bool, after position: TimePosition?, limit: Int
    ) async throws -> [IncidentRecord] {
        try await database.tracedRead { db in
            let tenant = IncidentRecord.filter(IncidentRecord.Columns.tenantId == tenantID)
            return try (openOnly ? tenant.open() : tenant)
                .newestFirst(after: position, limit: limit, timeColumn: "raised_at").fetchAll(db)
        }
    }

    /// Clears an open incident: later sign-ins of the customer are normal again, and its
    /// alerts close (`duress.cleared`, in the same transaction). Sessions opened under duress
    /// stay limited until they end. Nil when the tenant has no such incident; an incident
    /// already cleared is answered as it is.
    func clearIncident(tenantID: String, id: String, by userID: String, now: Date) async throws -> IncidentRecord? {
        try await database.tracedWrite { db in
            guard
                var incident = try IncidentRecord.filter(key: id).filter(IncidentRecord.Columns.tenantId == tenantID)
                    .fetchOne(db)
            else { return nil }
            if incident.clearedAt == nil {
                (incident.clearedAt, incident.clearedBy) = (now, userID)
                try incident.update(db)
                try outbox.enqueue(DuressCleared(incidentId: id, tenantId: tenantID, clearedAt: now), in: db)
            }
            return incident
        }
    }
}
