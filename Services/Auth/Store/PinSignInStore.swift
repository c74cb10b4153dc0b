import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// PIN sign-in: the throttle's counters, the devices customers are known on, and
/// opening a session with everything a duress PIN implies.
struct PinSignInStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox

    /// What a PIN sign-in needs before hashing: the customer (nil if unknown) and whether a
    /// throttle holds the attempt back (then until when).
    func gate(
        tenantID: String, customerRef: String, customerKey: String, deviceKey: String, now: Date
    ) async throws -> (customer: CustomerRecord?, blockedUntil: Date?) {
        try await database.tracedRead { db in
            let customer = try CustomerRecord.all().matching(tenant: tenantID, reference: customerRef).fetchOne(db)
            let blockedUntil = { (key: String) in
                try PinAttemptRecord.fetchOne(db, key: key).flatMap { PinThrottle.blockedUntil($0, now: now) }
            }
            var blocked = try blockedUntil(deviceKey)
            var knownDevice = false
            if let customer {
                knownDevice = try KnownDeviceRecord.exists(
                    db, key: ["user_id": customer.userId, "device_key": deviceKey])
            }
            if !knownDevice, let customerBlock = try blockedUntil(customerKey) {
                blocked = max(blocked ?? customerBlock, customerBlock)
            }
            return (customer, blocked)
        }
    }

    /// Counts a failed PIN sign-in against the customer reference and the device.
    func recordFailure(customerKey: String, deviceKey: String, policy: PinThrottle.Policy, now: Date) async throws {
        try await database.tracedWrite { db in
            for (key, free, maxDelay) in [
                (customerKey, policy.customerFreeAttempts, policy.maxCustomerDelay),
                (deviceKey, policy.deviceFreeAttempts, policy.maxDeviceDelay),
            ] {
                try PinThrottle.failure(
                    after: try PinAttemptRecord.fetchOne(db, key: key), key: key, freeAttempts: free,
                    maxDelay: maxDelay, now: now
                ).upsert(db)
            }
        }
    }

    /// Opens a PIN session, in one transaction with everything it implies.
    ///
    /// Under duress, or while the customer has an open incident (whichever PIN was used), the
    /// session is limited, the incident is opened or updated, and `duress.raised` is written
    /// for alerts. A normal sign-in does the same writes and rolls them back, so both take the
    /// same time. Returns the verdict to answer.
    func openSession(
        customer: CustomerRecord, duress: Bool, session: SessionRecord, refreshToken: RefreshTokenRecord,
        customerKey: String, deviceKey: String, location: GeoLocation?, device: DeviceInfo?, incidentID: String,
        now: Date
    ) async throws -> PinVerdict {
        try await database.tracedWrite { [outbox] db in
            let incident = try IncidentRecord.filter(IncidentRecord.Columns.userId == customer.userId).open()
                .fetchOne(db)
            let underDuress = duress || incident != nil
            var session = session
            session.limited = underDuress
            try session.insert(db)
            try refreshToken.insert(db)
            try KnownDeviceRecord(userId: customer.userId, deviceKey: deviceKey, lastSeenAt: now).upsert(db)
            try PinAttemptRecord.deleteAll(db, keys: [customerKey, deviceKey])
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
                        id: incidentID, tenantId: customer.tenantId, userId: customer.userId,
                        customerRef: customer.customerRef, raisedAt: now, lastRaisedAt: now,
                        latitude: location?.latitude, longitude: location?.longitude, clearedAt: nil, clearedBy: nil)
                    try raised.insert(db)
                }
                try outbox.enqueue(
                    DuressRaised(
                        incidentId: raised.id, tenantId: customer.tenantId, customerRef: customer.customerRef,
                        userId: customer.userId, sessionId: session.id, location: location, device: device,
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
}
