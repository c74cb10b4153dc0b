import Contracts
import Foundation
import GRDB
import ServiceKit

/// Tenants, their customers, PIN sign-in and duress incidents (Transrify).
extension AuthStore {
    // MARK: - Tenants

    func createTenant(_ tenant: TenantRecord) async throws {
        try await database.write { db in try tenant.insert(db) }
    }

    func tenant(id: String) async throws -> TenantRecord? {
        try await database.read { db in try TenantRecord.fetchOne(db, key: id) }
    }

    func tenant(apiKeyHash: String) async throws -> TenantRecord? {
        try await database.read { db in
            try TenantRecord.filter(sql: "api_key_hash = ?", arguments: [apiKeyHash]).fetchOne(db)
        }
    }

    func tenants(after position: TimePosition?, limit: Int) async throws -> [TenantRecord] {
        try await database.read { db in try TenantRecord.all().newestFirst(after: position, limit: limit).fetchAll(db) }
    }

    /// Applies `change` to the tenant and saves it; nil when there is no such tenant.
    func updateTenant(
        id: String, now: Date, _ change: @escaping @Sendable (inout TenantRecord) -> Void
    ) async throws
        -> TenantRecord?
    {
        try await database.write { db in
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
        try await database.write { db in
            try user.insert(db)
            try customer.insert(db)
        }
    }

    func customer(tenantID: String, customerRef: String) async throws -> CustomerRecord? {
        try await database.read { db in try Self.customer(tenantID: tenantID, customerRef: customerRef, in: db) }
    }

    static func customer(tenantID: String, customerRef: String, in db: Database) throws -> CustomerRecord? {
        try CustomerRecord.filter(sql: "tenant_id = ? AND customer_ref = ?", arguments: [tenantID, customerRef])
            .fetchOne(db)
    }

    func replacePins(
        tenantID: String, customerRef: String, pinHash: String, duressPinHash: String, now: Date
    )
        async throws -> CustomerRecord?
    {
        try await database.write { db in
            guard var customer = try Self.customer(tenantID: tenantID, customerRef: customerRef, in: db) else {
                return nil
            }
            customer.pinHash = pinHash
            customer.duressPinHash = duressPinHash
            customer.pinsUpdatedAt = now
            try customer.update(db)
            return customer
        }
    }

    // MARK: - PIN sign-in

    /// What a PIN sign-in needs before hashing: the customer (nil if unknown) and whether a
    /// throttle holds the attempt back (then until when).
    func pinGate(
        tenantID: String, customerRef: String, customerKey: String, deviceKey: String, now: Date
    ) async throws -> (customer: CustomerRecord?, blockedUntil: Date?) {
        try await database.read { db in
            let customer = try Self.customer(tenantID: tenantID, customerRef: customerRef, in: db)
            var blocked = try PinThrottle.blockedUntil(deviceKey, now: now, in: db)
            var knownDevice = false
            if let customer {
                knownDevice =
                    try Int.fetchOne(
                        db, sql: "SELECT 1 FROM known_device WHERE user_id = ? AND device_key = ?",
                        arguments: [customer.userID, deviceKey]) != nil
            }
            if !knownDevice, let customerBlock = try PinThrottle.blockedUntil(customerKey, now: now, in: db) {
                blocked = max(blocked ?? customerBlock, customerBlock)
            }
            return (customer, blocked)
        }
    }

    /// Counts a failed PIN sign-in against the customer reference and the device.
    func recordPinFailure(customerKey: String, deviceKey: String, policy: PinThrottle.Policy, now: Date) async throws {
        try await database.write { db in
            try PinThrottle.recordFailure(
                customerKey, freeAttempts: policy.customerFreeAttempts, maxDelay: policy.maxCustomerDelay, now: now,
                in: db)
            try PinThrottle.recordFailure(
                deviceKey, freeAttempts: policy.deviceFreeAttempts, maxDelay: policy.maxDeviceDelay, now: now, in: db)
        }
    }

    /// Opens a PIN session, in one transaction with everything it implies.
    ///
    /// Under duress, or while the customer has an open incident (whichever PIN was used), the
    /// session is limited, the incident is opened or updated, and `duress.raised` is written
    /// for alerts. A normal sign-in does the same writes and rolls them back, so both take the
    /// same time. Returns the verdict to answer.
    func openPinSession(
        customer: CustomerRecord, duress: Bool, session: SessionRecord, refreshToken: RefreshTokenRecord,
        customerKey: String, deviceKey: String, location: GeoLocation?, device: DeviceInfo?, incidentID: String,
        now: Date
    ) async throws -> PinVerdict {
        try await database.write { [outbox] db in
            let incident = try IncidentRecord.filter(
                sql: "user_id = ? AND cleared_at IS NULL", arguments: [customer.userID]
            )
            .fetchOne(db)
            let underDuress = duress || incident != nil
            var session = session
            session.limited = underDuress
            try session.insert(db)
            try refreshToken.insert(db)
            try db.execute(
                sql: """
                    INSERT INTO known_device (user_id, device_key, last_seen_at) VALUES (?, ?, ?)
                    ON CONFLICT(user_id, device_key) DO UPDATE SET last_seen_at = excluded.last_seen_at
                    """, arguments: [customer.userID, deviceKey, now])
            try PinThrottle.clear([customerKey, deviceKey], in: db)
            // The duress writes, done for real under duress and rehearsed (done, then rolled
            // back to a savepoint) otherwise: both verdicts cost the same work.
            let raise = { (db: Database) throws in
                let raised: IncidentRecord
                if var open = incident {
                    open.lastRaisedAt = now
                    if let location {
                        (open.latitude, open.longitude) = (location.latitude, location.longitude)
                    }
                    try open.update(db)
                    raised = open
                } else {
                    raised = IncidentRecord(
                        id: incidentID, tenantID: customer.tenantID, userID: customer.userID,
                        customerRef: customer.customerRef, raisedAt: now, lastRaisedAt: now,
                        latitude: location?.latitude, longitude: location?.longitude, clearedAt: nil, clearedBy: nil)
                    try raised.insert(db)
                }
                try outbox.enqueue(
                    DuressRaised(
                        incidentId: raised.id, tenantId: customer.tenantID, customerRef: customer.customerRef,
                        userId: customer.userID, sessionId: session.id, location: location, device: device,
                        raisedAt: now),
                    in: db)
            }
            if underDuress {
                try raise(db)
                return .duress
            }
            try db.inSavepoint {
                try raise(db)
                return .rollback
            }
            return .normal
        }
    }

    // MARK: - Incidents

    func incidents(
        tenantID: String, openOnly: Bool, after position: TimePosition?, limit: Int
    ) async throws
        -> [IncidentRecord]
    {
        try await database.read { db in
            try IncidentRecord.filter(
                sql: openOnly ? "tenant_id = ? AND cleared_at IS NULL" : "tenant_id = ?", arguments: [tenantID]
            )
            .newestFirst(after: position, limit: limit, timeColumn: "raised_at").fetchAll(db)
        }
    }

    /// Clears an open incident: later sign-ins of the customer are normal again. Sessions
    /// opened under duress stay limited until they end. Nil when the tenant has no such
    /// incident; an incident already cleared is answered as it is.
    func clearIncident(tenantID: String, id: String, by userID: String, now: Date) async throws -> IncidentRecord? {
        try await database.write { db in
            guard
                var incident = try IncidentRecord.filter(key: id).filter(sql: "tenant_id = ?", arguments: [tenantID])
                    .fetchOne(db)
            else { return nil }
            if incident.clearedAt == nil {
                incident.clearedAt = now
                incident.clearedBy = userID
                try incident.update(db)
            }
            return incident
        }
    }
}
