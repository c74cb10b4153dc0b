import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Tenants' duress alerts: raised by auth's `duress.raised`, located by the app of
/// the person in duress, found by colleagues nearby and acknowledged by them.
extension AlertsStore {
    /// Who calls a duress route: a PIN customer's session.
    struct DuressCaller: Sendable {
        var userID: String
        var sessionID: String
        var tenantID: String
        var customerRef: String
        /// Under duress: sees no alerts.
        var limited: Bool
    }

    /// Who hears of a duress alert: the tenant's users last seen within `radius` metres of it,
    /// at most `positionMaxAge` seconds ago.
    struct DuressReach: Sendable {
        var radius: Double
        var positionMaxAge: TimeInterval
    }

    /// `duress.raised` → the incident's one duress alert, under the id (and with the location)
    /// the session's `POST /v1/alerts/duress` already gave it, if that came first. A later
    /// sign-in under an incident already alerted joins its alert and moves it to the place it
    /// gives: colleagues see one alert per person, however many sessions. Once the alert has
    /// a location, the colleagues near it are notified. Applied once per event.
    static func duressRaised(
        _ envelope: EventEnvelope<DuressRaised>, reach: DuressReach, jobs: JobQueue, now: Date, in db: Database
    ) throws {
        let event = envelope.payload
        var session = try DuressSessionRecord.fetchOne(db, key: event.sessionId)
        // The place of this sign-in: what its app sent, else what the sign-in carried.
        let place =
            session.flatMap { known in known.latitude.flatMap { lat in known.longitude.map { (lat, $0) } } }
            ?? event.location.map { ($0.latitude, $0.longitude) }
        let device = session?.devicePlatform ?? event.device?.platform
        var alert: DuressAlertRecord
        if let open = try DuressAlertRecord.filter(
            DuressAlertRecord.Columns.incidentId == event.incidentId
                && DuressAlertRecord.Columns.tenantId == event.tenantId && DuressAlertRecord.Columns.resolvedAt == nil
        ).order(Column("raised_at")).fetchOne(db) {
            alert = open
            if let (latitude, longitude) = place {
                (alert.latitude, alert.longitude) = (latitude, longitude)
                alert.devicePlatform = device ?? alert.devicePlatform
                try alert.update(db)
            }
        } else {
            alert = DuressAlertRecord(
                id: session?.alertId ?? envelope.id.uuidString.lowercased(), incidentId: event.incidentId,
                tenantId: event.tenantId, customerRef: event.customerRef, userId: event.userId,
                latitude: place?.0, longitude: place?.1, devicePlatform: device, raisedAt: event.raisedAt,
                sessionId: event.sessionId)
            try alert.insert(db, onConflict: .ignore)
        }
        // The session now names its incident's alert; one that had not called
        // `POST /v1/alerts/duress` yet will be given the alert's own id.
        if session == nil {
            session = DuressSessionRecord(
                sessionId: event.sessionId, alertId: alert.id, userId: event.userId,
                latitude: event.location?.latitude, longitude: event.location?.longitude,
                devicePlatform: event.device?.platform, createdAt: now)
        }
        session?.incidentAlertId = alert.id
        try session?.save(db)
        try notifyNearby(alert, reach: reach, jobs: jobs, now: now, in: db)
    }

    /// A critical `duress_alert` notification ("Nearby Duress Alert") for each of the tenant's
    /// users last seen near the alert, pushed at once whatever their quiet hours or
    /// preferences; nothing while the alert has no location. Once per alert and user, however
    /// often it moves (those near its new place who were not told yet are). As `/nearby` shows
    /// nothing to someone in duress, a user with an open alert of their own is not told.
    static func notifyNearby(
        _ alert: DuressAlertRecord, reach: DuressReach, jobs: JobQueue, now: Date, in db: Database
    ) throws {
        guard let latitude = alert.latitude, let longitude = alert.longitude,
            let center = try? Coordinate(latitude: latitude, longitude: longitude)
        else { return }
        let box = center.boundingBox(radius: reach.radius)
        var positions = ResponderPositionRecord.filter(
            Column("tenant_id") == alert.tenantId && Column("user_id") != alert.userId
                && Column("at") >= now.addingTimeInterval(-reach.positionMaxAge)
                && box.latitudes.contains(Column("latitude"))
        )
        .filter(
            sql: "user_id NOT IN (SELECT user_id FROM duress_alert WHERE tenant_id = ? AND resolved_at IS NULL)",
            arguments: [alert.tenantId])
        if let longitudes = box.longitudes { positions = positions.filter(longitudes.contains(Column("longitude"))) }
        for position in try positions.fetchAll(db) {
            guard let point = try? Coordinate(latitude: position.latitude, longitude: position.longitude),
                center.distance(to: point) <= reach.radius
            else { continue }
            try tell(position.userId, of: alert, jobs: jobs, in: db)
        }
    }

    /// A tenant user just seen at `position` (a poll of `/nearby`, a live stream opened with a
    /// place) is told of every open alert of their tenant within reach that they were not told
    /// of yet: one raised while they were elsewhere, or before they had ever been seen. Nobody
    /// under duress is told, as in ``notifyNearby(_:reach:jobs:now:in:)``, after the same
    /// reads (a poll under duress takes the steps of any other).
    static func tellOfOpenAlerts(
        near position: ResponderPositionRecord, limited: Bool, reach: DuressReach, jobs: JobQueue, in db: Database
    ) throws {
        guard let center = try? Coordinate(latitude: position.latitude, longitude: position.longitude) else { return }
        let inDuress =
            try DuressAlertRecord.filter(
                DuressAlertRecord.Columns.tenantId == position.tenantId
                    && DuressAlertRecord.Columns.userId == position.userId
                    && DuressAlertRecord.Columns.resolvedAt == nil
            ).isEmpty(db) == false
        let near = try openAlerts(
            of: position.tenantId, besides: position.userId, within: reach.radius, of: center, in: db)
        guard !limited, !inDuress else { return }
        for (alert, _, _) in near { try tell(position.userId, of: alert, jobs: jobs, in: db) }
    }

    /// The `duress_alert` notification of `alert` for `user`; nothing if they have it already.
    private static func tell(_ user: String, of alert: DuressAlertRecord, jobs: JobQueue, in db: Database) throws {
        try insert(
            .duressAlert, for: user, values: [:], data: ["alertId": alert.id, "customerRef": alert.customerRef],
            actor: nil, event: try header(of: alert), shared: true, jobs: jobs, in: db)
    }

    /// The open, located alerts of `tenant` within `radius` metres of `center`, nearest first,
    /// with their distances and places; never `user`'s own.
    private static func openAlerts(
        of tenant: String, besides user: String, within radius: Double, of center: Coordinate, in db: Database
    ) throws -> [(alert: DuressAlertRecord, distance: Double, place: GeoLocation)] {
        let box = center.boundingBox(radius: radius)
        var open = DuressAlertRecord.filter(
            DuressAlertRecord.Columns.tenantId == tenant && DuressAlertRecord.Columns.resolvedAt == nil
                && DuressAlertRecord.Columns.userId != user
                && box.latitudes.contains(DuressAlertRecord.Columns.latitude))
        if let longitudes = box.longitudes {
            open = open.filter(longitudes.contains(DuressAlertRecord.Columns.longitude))
        }
        return try open.fetchAll(db).compactMap { alert in
            guard let latitude = alert.latitude, let longitude = alert.longitude,
                let point = try? Coordinate(latitude: latitude, longitude: longitude)
            else { return nil }
            let distance = center.distance(to: point)
            return distance <= radius
                ? (alert, distance, GeoLocation(latitude: latitude, longitude: longitude)) : nil
        }
        .sorted { ($0.distance, $0.alert.id) < ($1.distance, $1.alert.id) }
    }

    /// `POST /v1/alerts/duress`: the alert id of the caller's session (`newID` on its first
    /// call), its location and device stored with it and, if the session is under duress and
    /// its incident's alert is here, on the alert, which moves to the latest place. Every
    /// session takes the same steps, so a session that is not under duress cannot be told apart
    /// by what it gets or how long it takes; its id names nothing anyone can see.
    func locateDuressAlert(
        for caller: DuressCaller, at location: Coordinate?, device: String?, newID: String, reach: DuressReach,
        jobs: JobQueue, now: Date
    ) async throws -> String {
        try await database.tracedWrite { db in
            var session =
                try DuressSessionRecord.fetchOne(db, key: caller.sessionID)
                ?? DuressSessionRecord(
                    sessionId: caller.sessionID, alertId: newID, userId: caller.userID, createdAt: now)
            if let location {
                session.latitude = location.latitude
                session.longitude = location.longitude
            }
            session.devicePlatform = device ?? session.devicePlatform
            try session.save(db)
            let ofIncident = DuressAlertRecord.filter(key: session.incidentAlertId)
                .filter(DuressAlertRecord.Columns.resolvedAt == nil)
            try ofIncident.updateAll(
                db, DuressAlertRecord.Columns.devicePlatform.set(to: session.devicePlatform))
            // The alert follows its latest place, and reaches the colleagues near it.
            if let location, var alert = try ofIncident.fetchOne(db) {
                (alert.latitude, alert.longitude) = (location.latitude, location.longitude)
                try alert.update(db)
                try Self.notifyNearby(alert, reach: reach, jobs: jobs, now: now, in: db)
            }
            return session.alertId
        }
    }

    /// `GET /v1/alerts/nearby`: the open, located alerts of the caller's tenant within `radius`
    /// metres of `center`, nearest first, with their acknowledgements; never the caller's own,
    /// and none at all for a caller under duress (after the same work). Records `center` as the
    /// caller's last known position (and tells them of open alerts within reach they have not
    /// heard of); positions older than the reach's `positionMaxAge` go.
    func nearbyAlerts(
        for caller: DuressCaller, around center: Coordinate, radius: Double, reach: DuressReach, jobs: JobQueue,
        now: Date
    ) async throws -> [NearbyAlert] {
        try await database.tracedWrite { db in
            try Self.record(
                ResponderPositionRecord(
                    userId: caller.userID, tenantId: caller.tenantID, latitude: center.latitude,
                    longitude: center.longitude, at: now), limited: caller.limited, reach: reach, jobs: jobs, in: db)
            let near = try Self.openAlerts(
                of: caller.tenantID, besides: caller.userID, within: radius, of: center, in: db)
            let acknowledgements = Dictionary(
                grouping:
                    try DuressAcknowledgementRecord
                    .filter(near.map(\.0.id).contains(DuressAcknowledgementRecord.Columns.alertId))
                    .order(DuressAcknowledgementRecord.Columns.at, DuressAcknowledgementRecord.Columns.userId)
                    .fetchAll(db),
                by: \.alertId)
            guard !caller.limited else { return [] }
            return near.map { alert, distance, place in
                NearbyAlert(
                    alertId: alert.id, customerRef: alert.customerRef, distanceM: Int(distance.rounded()),
                    location: place, raisedAt: alert.raisedAt,
                    acknowledgements: (acknowledgements[alert.id] ?? []).map(\.contract))
            }
        }
    }

    /// A tenant user's last known position (a `/nearby` poll, or a live stream opened with
    /// `lat` and `lon`), and the open alerts within reach it tells them of. Positions are kept
    /// briefly: each one recorded deletes those older than `positionMaxAge` (by index).
    static func record(
        _ position: ResponderPositionRecord, limited: Bool, reach: DuressReach, jobs: JobQueue, in db: Database
    ) throws {
        try position.upsertPrepared(db)
        try ResponderPositionRecord.filter(Column("at") < position.at.addingTimeInterval(-reach.positionMaxAge))
            .deleteAll(db)
        try tellOfOpenAlerts(near: position, limited: limited, reach: reach, jobs: jobs, in: db)
    }

    func record(_ position: ResponderPositionRecord, limited: Bool, reach: DuressReach, jobs: JobQueue) async throws {
        try await database.tracedWrite { db in
            try Self.record(position, limited: limited, reach: reach, jobs: jobs, in: db)
        }
    }

    /// Whether `name` names `alertID`: its own id, or the id a later session of its incident
    /// was given by `POST /v1/alerts/duress`.
    func isName(_ name: String, of alertID: String) async throws -> Bool {
        guard name != alertID else { return true }
        return try await database.tracedRead { db in
            try DuressSessionRecord.filter(
                DuressSessionRecord.Columns.alertId == name && DuressSessionRecord.Columns.incidentAlertId == alertID
            ).isEmpty(db) == false
        }
    }

    /// `POST /v1/alerts/ack`: the caller's acknowledgement of an open alert of their tenant
    /// (the first one they made, if they acknowledged it before); nil when there is no such
    /// alert for them (another tenant's, their own, cleared, unknown).
    func acknowledge(
        alertID: String, by caller: DuressCaller, method: AcknowledgementMethod, jobs: JobQueue, now: Date
    ) async throws -> DuressAcknowledgementRecord? {
        try await database.tracedWrite { db in
            guard
                let alert = try DuressAlertRecord.filter(key: alertID)
                    .filter(
                        DuressAlertRecord.Columns.tenantId == caller.tenantID
                            && DuressAlertRecord.Columns.resolvedAt == nil
                            && DuressAlertRecord.Columns.userId != caller.userID
                    ).fetchOne(db)
            else { return nil }
            try DuressAcknowledgementRecord(
                alertId: alertID, userId: caller.userID, customerRef: caller.customerRef, method: method, at: now
            ).insert(db, onConflict: .ignore)
            if db.changesCount > 0 {
                // The others told of the alert hear who is responding.
                let header = try Self.header(of: alert).id(for: caller.userID)
                for user in try Self.toldOf(alert, in: db) where user != caller.userID {
                    try Self.insert(
                        .duressAcknowledged, for: user, values: ["responderRef": caller.customerRef],
                        data: ["alertId": alert.id, "customerRef": alert.customerRef], actor: nil,
                        event: EventHeader(id: header, type: DuressRaised.eventType, source: .auth, occurredAt: now),
                        shared: true, jobs: jobs, in: db)
                }
            }
            return try DuressAcknowledgementRecord.fetchOne(db, key: ["alert_id": alertID, "user_id": caller.userID])
        }
    }

    /// `GET /v1/alerts/duress`: a tenant's alerts, newest first, with their acknowledgements.
    func duressAlerts(
        tenantID: String, openOnly: Bool, after position: TimePosition?, limit: Int
    ) async throws -> [DuressAlertState] {
        try await database.tracedRead { db in
            var alerts = DuressAlertRecord.filter(DuressAlertRecord.Columns.tenantId == tenantID)
            if openOnly { alerts = alerts.filter(DuressAlertRecord.Columns.resolvedAt == nil) }
            let records = try alerts.newestFirst(after: position, limit: limit, timeColumn: "raised_at").fetchAll(db)
            let acknowledgements = Dictionary(
                grouping:
                    try DuressAcknowledgementRecord
                    .filter(records.map(\.id).contains(DuressAcknowledgementRecord.Columns.alertId))
                    .order(DuressAcknowledgementRecord.Columns.at, DuressAcknowledgementRecord.Columns.userId)
                    .fetchAll(db),
                by: \.alertId)
            return records.map { alert in
                DuressAlertState(
                    alertId: alert.id, incidentId: alert.incidentId, customerRef: alert.customerRef,
                    location: alert.latitude.flatMap { latitude in
                        alert.longitude.map { GeoLocation(latitude: latitude, longitude: $0) }
                    }, raisedAt: alert.raisedAt, resolvedAt: alert.resolvedAt,
                    acknowledgements: (acknowledgements[alert.id] ?? []).map(\.contract))
            }
        }
    }

    /// `duress.cleared` → the incident's open alerts close; those told of them hear the
    /// customer is safe. Applied once per event.
    static func duressCleared(_ envelope: EventEnvelope<DuressCleared>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        let open = try DuressAlertRecord.filter(
            Column("incident_id") == event.incidentId && DuressAlertRecord.Columns.tenantId == event.tenantId
                && DuressAlertRecord.Columns.resolvedAt == nil
        ).fetchAll(db)
        for alert in open {
            try DuressAlertRecord.filter(key: alert.id).updateAll(
                db, DuressAlertRecord.Columns.resolvedAt.set(to: event.clearedAt))
            let header = try header(of: alert)
            for user in try toldOf(alert, in: db) {
                try insert(
                    .duressCleared, for: user, values: [:],
                    data: ["alertId": alert.id, "customerRef": alert.customerRef], actor: nil,
                    event: EventHeader(
                        id: header.id(for: "cleared"), type: DuressCleared.eventType, source: .auth,
                        occurredAt: event.clearedAt),
                    shared: true, jobs: jobs, in: db)
            }
        }
    }

    /// The header the alert's notifications are made under (its id names the alert).
    static func header(of alert: DuressAlertRecord) throws -> EventHeader {
        guard let identity = UUID(uuidString: alert.id) else { throw ServiceError.notFound("Alert") }
        return EventHeader(id: identity, type: DuressRaised.eventType, source: .auth, occurredAt: alert.raisedAt)
    }

    /// The users a `duress_alert` notification told of `alert` (by the partial index
    /// `notification_by_duress_alert`, not a scan of every notification).
    static func toldOf(_ alert: DuressAlertRecord, in db: Database) throws -> [String] {
        try String.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT DISTINCT user_id FROM notification
                    WHERE type = 'duress_alert' AND json_extract(data, '$.alertId') = ? ORDER BY user_id
                    """), arguments: [alert.id])
    }
}
