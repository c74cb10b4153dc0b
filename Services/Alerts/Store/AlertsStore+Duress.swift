import Contracts
import Foundation
import GRDB
import ServiceKit

/// Tenants' duress alerts (Transrify): raised by auth's `duress.raised`, located by the app of
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

    /// `duress.raised` → a duress alert for the customer's tenant, under the id (and with the
    /// location) the session's `POST /v1/alerts/duress` already gave it, if that came first.
    /// Applied once per event.
    static func duressRaised(_ envelope: EventEnvelope<DuressRaised>, in db: Database) throws {
        let event = envelope.payload
        let known = try DuressSessionRecord.fetchOne(db, key: event.sessionId)
        let located = known?.latitude != nil
        try DuressAlertRecord(
            id: known?.alertId ?? envelope.id.uuidString.lowercased(), incidentId: event.incidentId,
            tenantId: event.tenantId, customerRef: event.customerRef, userId: event.userId,
            latitude: located ? known?.latitude : event.location?.latitude,
            longitude: located ? known?.longitude : event.location?.longitude,
            devicePlatform: known?.devicePlatform ?? event.device?.platform, raisedAt: event.raisedAt,
            sessionId: event.sessionId
        ).insert(db, onConflict: .ignore)
    }

    /// `POST /v1/alerts/duress`: the alert id of the caller's session (`newID` on its first
    /// call), its location and device stored with it and, if the session is under duress and
    /// its alert is here, on the alert. Every session takes the same steps, so a session that is
    /// not under duress cannot be told apart by what it gets or how long it takes; its id names
    /// nothing anyone can see.
    func locateDuressAlert(
        for caller: DuressCaller, at location: Coordinate?, device: String?, newID: String, now: Date
    ) async throws -> String {
        try await database.write { db in
            var session =
                try DuressSessionRecord.fetchOne(db, key: caller.sessionID)
                ?? DuressSessionRecord(
                    sessionId: caller.sessionID,
                    alertId: try DuressAlertRecord.filter(DuressAlertRecord.Columns.sessionId == caller.sessionID)
                        .select(Column("id"), as: String.self).fetchOne(db) ?? newID,
                    userId: caller.userID, createdAt: now)
            if let location {
                session.latitude = location.latitude
                session.longitude = location.longitude
            }
            session.devicePlatform = device ?? session.devicePlatform
            try session.save(db)
            try DuressAlertRecord.filter(DuressAlertRecord.Columns.sessionId == caller.sessionID).updateAll(
                db, DuressAlertRecord.Columns.latitude.set(to: session.latitude),
                DuressAlertRecord.Columns.longitude.set(to: session.longitude),
                DuressAlertRecord.Columns.devicePlatform.set(to: session.devicePlatform))
            return session.alertId
        }
    }

    /// `GET /v1/alerts/nearby`: the open, located alerts of the caller's tenant within `radius`
    /// metres of `center`, nearest first, with their acknowledgements; never the caller's own,
    /// and none at all for a caller under duress (after the same work). Records `center` as the
    /// caller's last known position.
    func nearbyAlerts(
        for caller: DuressCaller, around center: Coordinate, radius: Double, now: Date
    )
        async throws -> [NearbyAlert]
    {
        try await database.write { db in
            try ResponderPositionRecord(
                userId: caller.userID, tenantId: caller.tenantID, latitude: center.latitude,
                longitude: center.longitude, at: now
            ).save(db)
            let box = center.boundingBox(radius: radius)
            var open = DuressAlertRecord.filter(
                DuressAlertRecord.Columns.tenantId == caller.tenantID && DuressAlertRecord.Columns.resolvedAt == nil
                    && DuressAlertRecord.Columns.userId != caller.userID
                    && box.latitudes.contains(DuressAlertRecord.Columns.latitude))
            if let longitudes = box.longitudes {
                open = open.filter(longitudes.contains(DuressAlertRecord.Columns.longitude))
            }
            let near = try open.fetchAll(db).compactMap { alert -> (DuressAlertRecord, Double)? in
                guard let latitude = alert.latitude, let longitude = alert.longitude,
                    let point = try? Coordinate(latitude: latitude, longitude: longitude)
                else { return nil }
                let distance = center.distance(to: point)
                return distance <= radius ? (alert, distance) : nil
            }
            .sorted { ($0.1, $0.0.id) < ($1.1, $1.0.id) }
            let acknowledgements = Dictionary(
                grouping:
                    try DuressAcknowledgementRecord
                    .filter(near.map(\.0.id).contains(DuressAcknowledgementRecord.Columns.alertId))
                    .order(DuressAcknowledgementRecord.Columns.at, DuressAcknowledgementRecord.Columns.userId)
                    .fetchAll(db),
                by: \.alertId)
            guard !caller.limited else { return [] }
            return near.map { alert, distance in
                NearbyAlert(
                    alertId: alert.id, customerRef: alert.customerRef, distanceM: Int(distance.rounded()),
                    raisedAt: alert.raisedAt, acknowledgements: (acknowledgements[alert.id] ?? []).map(\.contract))
            }
        }
    }

    /// `POST /v1/alerts/ack`: the caller's acknowledgement of an open alert of their tenant
    /// (the first one they made, if they acknowledged it before); nil when there is no such
    /// alert for them (another tenant's, their own, cleared, unknown).
    func acknowledge(
        alertID: String, by caller: DuressCaller, method: AcknowledgementMethod, now: Date
    )
        async throws -> DuressAcknowledgementRecord?
    {
        try await database.write { db in
            guard
                try DuressAlertRecord.filter(key: alertID)
                    .filter(
                        DuressAlertRecord.Columns.tenantId == caller.tenantID
                            && DuressAlertRecord.Columns.resolvedAt == nil
                            && DuressAlertRecord.Columns.userId != caller.userID
                    ).isEmpty(db) == false
            else { return nil }
            try DuressAcknowledgementRecord(
                alertId: alertID, userId: caller.userID, customerRef: caller.customerRef, method: method, at: now
            ).insert(db, onConflict: .ignore)
            return try DuressAcknowledgementRecord.fetchOne(db, key: ["alert_id": alertID, "user_id": caller.userID])
        }
    }
}
