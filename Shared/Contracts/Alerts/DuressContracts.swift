import Foundation

/// `POST /v1/alerts/duress` (Transrify): the client's location and device for its session's
/// duress alert. Sent by the app after every PIN sign-in whose verdict was DURESS; answered the
/// same way for a session that is not under duress (nothing is raised then).
public struct DuressAlertRequest: Codable, Sendable {
    /// The session of the access token (the sign-in's `sessionId`).
    public var sessionId: String
    /// The tenant's API key, as the app holds it. The tenant is the session's; the key is
    /// accepted for the seed's client and not otherwise used.
    public var tenantKey: String
    public var location: GeoLocation?
    public var device: DeviceInfo?
    /// Always `DURESS`.
    public var alertKind: String

    public init(
        sessionId: String, tenantKey: String, location: GeoLocation? = nil, device: DeviceInfo? = nil,
        alertKind: String = "DURESS"
    ) {
        self.sessionId = sessionId
        self.tenantKey = tenantKey
        self.location = location
        self.device = device
        self.alertKind = alertKind
    }
}

/// The answer to `POST /v1/alerts/duress`: the id the app puts in its NFC payload
/// (`trf:duress:<alertId>`). The same id for every call of one session.
public struct DuressAlertAccepted: Codable, Sendable, Equatable {
    public var alertId: String

    public init(alertId: String) { self.alertId = alertId }
}

/// How a responder acknowledged an alert.
public enum AcknowledgementMethod: String, Codable, Sendable, CaseIterable {
    /// From the push notification.
    case push = "PUSH"
    /// From the in-app banner.
    case inApp = "INAPP"
    /// By tapping the phone of the person in duress (its NFC payload names the alert).
    case nfc = "NFC"
}

/// `POST /v1/alerts/ack`.
public struct AlertAcknowledgementRequest: Codable, Sendable {
    public var alertId: String
    /// The responder's own customer reference (the session's customer's is what is recorded).
    public var customerRef: String?
    public var method: AcknowledgementMethod
    /// NFC only, required there: the payload read from the tag, `trf:duress:<alertId>`.
    public var payload: String?

    public init(alertId: String, customerRef: String? = nil, method: AcknowledgementMethod, payload: String? = nil) {
        self.alertId = alertId
        self.customerRef = customerRef
        self.method = method
        self.payload = payload
    }
}

/// One responder's acknowledgement of a duress alert.
public struct AlertAcknowledgement: Codable, Sendable, Equatable {
    public var alertId: String
    /// The responder's customer reference.
    public var customerRef: String
    public var method: AcknowledgementMethod
    public var acknowledgedAt: Date

    public init(alertId: String, customerRef: String, method: AcknowledgementMethod, acknowledgedAt: Date) {
        self.alertId = alertId
        self.customerRef = customerRef
        self.method = method
        self.acknowledgedAt = acknowledgedAt
    }
}

/// An open duress alert of the caller's tenant within the radius asked for.
public struct NearbyAlert: Codable, Sendable, Equatable {
    public var alertId: String
    /// The customer reference of the person in duress.
    public var customerRef: String
    /// Whole metres from the caller's position to the alert's.
    public var distanceM: Int
    /// Where the alert is, for the banner's "View Map" (the latest place its sessions gave).
    public var location: GeoLocation
    public var raisedAt: Date
    /// Who acknowledged it so far, first first.
    public var acknowledgements: [AlertAcknowledgement]

    public init(
        alertId: String, customerRef: String, distanceM: Int, location: GeoLocation, raisedAt: Date,
        acknowledgements: [AlertAcknowledgement]
    ) {
        self.alertId = alertId
        self.customerRef = customerRef
        self.distanceM = distanceM
        self.location = location
        self.raisedAt = raisedAt
        self.acknowledgements = acknowledgements
    }
}

/// `GET /v1/alerts/nearby`: nearest first.
public struct NearbyAlerts: Codable, Sendable, Equatable {
    public var alerts: [NearbyAlert]

    public init(alerts: [NearbyAlert]) { self.alerts = alerts }
}

/// A duress alert as a tenant's responders and admins see it (`GET /v1/alerts/duress`).
public struct DuressAlertState: Codable, Sendable, Equatable {
    public var alertId: String
    /// Auth's incident (`/v1/tenants/{id}/incidents/{incidentId}`).
    public var incidentId: String
    public var customerRef: String
    public var location: GeoLocation?
    public var raisedAt: Date
    /// When the incident was cleared; open until then.
    public var resolvedAt: Date?
    /// First first.
    public var acknowledgements: [AlertAcknowledgement]

    enum CodingKeys: String, CodingKey {
        case alertId, incidentId, customerRef, location, raisedAt, resolvedAt, acknowledgements
    }

    public init(
        alertId: String, incidentId: String, customerRef: String, location: GeoLocation?, raisedAt: Date,
        resolvedAt: Date?, acknowledgements: [AlertAcknowledgement]
    ) {
        self.alertId = alertId
        self.incidentId = incidentId
        self.customerRef = customerRef
        self.location = location
        self.raisedAt = raisedAt
        self.resolvedAt = resolvedAt
        self.acknowledgements = acknowledgements
    }
}
