import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Push devices: registered per session, moved when another session registers the same token,
/// gone when their session ends.
extension AlertsStore {
    /// What registering did.
    enum Registered {
        case created(DeviceRecord)
        case refreshed(DeviceRecord)
    }

    /// Registers a validated token for `session` of `user`. The same token of the same user is
    /// refreshed in place; of another user (a shared phone after a sign-out) it moves, under a
    /// new id. A new token for the same `deviceId` replaces the installation's old one.
    func register(
        _ registration: DeviceRegistration, user: String, session: String, newID: String, at now: Date
    ) async throws -> Registered {
        try await database.tracedWrite { db in
            let existing = try DeviceRecord.filter(
                DeviceRecord.Columns.provider == registration.provider
                    && DeviceRecord.Columns.token == registration.token
            ).fetchOne(db)
            if let deviceId = registration.deviceId {
                try DeviceRecord.all().of(user).filter(
                    DeviceRecord.Columns.provider == registration.provider
                        && DeviceRecord.Columns.deviceId == deviceId
                        && DeviceRecord.Columns.token != registration.token
                ).deleteAll(db)
            }
            var record = DeviceRecord(
                id: newID, userId: user, sessionId: session, provider: registration.provider,
                token: registration.token, bundleId: registration.bundleId, environment: registration.environment,
                platform: registration.platform, deviceId: registration.deviceId, createdAt: now,
                lastRefreshedAt: now)
            if let existing, existing.userId == user {
                (record.id, record.createdAt) = (existing.id, existing.createdAt)
                try record.update(db)
                return .refreshed(record)
            }
            try existing?.delete(db)
            try record.insert(db)
            // Keep the newest few: an app that registers a fresh token on every launch without
            // a deviceId must not grow one user's fan-out without bound.
            let stale = try DeviceRecord.all().of(user)
                .order(DeviceRecord.Columns.lastRefreshedAt.desc, DeviceRecord.Columns.id)
                .limit(Int.max, offset: PushTokenRules.maxDevicesPerUser)
                .select(DeviceRecord.Columns.id, as: String.self).fetchAll(db)
            try DeviceRecord.filter(keys: stale).deleteAll(db)
            return .created(record)
        }
    }

    /// `user`'s devices, most recently refreshed first.
    func devices(of user: String) async throws -> [DeviceRecord] {
        try await database.tracedRead { db in
            try DeviceRecord.all().of(user)
                .order(DeviceRecord.Columns.lastRefreshedAt.desc, DeviceRecord.Columns.id).fetchAll(db)
        }
    }

    /// Removes one of `user`'s devices; false when they have no such device.
    func removeDevice(id: String, of user: String) async throws -> Bool {
        try await database.tracedWrite { db in try DeviceRecord.filter(key: id).of(user).deleteAll(db) > 0 }
    }

    /// Removes `user`'s Expo devices of `session` (`DELETE /v1/me/push-token` signs a token out).
    func removeDevices(of user: String, session: String, provider: PushProvider) async throws -> Int {
        try await database.tracedWrite { db in
            try DeviceRecord.all().of(user).filter(
                DeviceRecord.Columns.sessionId == session && DeviceRecord.Columns.provider == provider
            ).deleteAll(db)
        }
    }

    // MARK: - Events

    /// `session.ended` → the sessions' devices go: nobody signed in there any more. So does
    /// the alert id a session's `POST /v1/alerts/duress` was given.
    static func sessionEnded(_ envelope: EventEnvelope<SessionEnded>, in db: Database) throws {
        let event = envelope.payload
        try DeviceRecord.all().of(event.userId).filter(event.sessionIds.contains(DeviceRecord.Columns.sessionId))
            .deleteAll(db)
        try DuressSessionRecord.deleteAll(db, keys: event.sessionIds)
    }
}
