import Foundation

// MARK: - Tenants (admins)

/// An organisation (a tenant): its customers sign in with a reference and a PIN.
public struct Tenant: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable { case active, suspended }

    public var id: String
    public var name: String
    public var status: Status
    public var createdAt: Date

    public init(id: String, name: String, status: Status, createdAt: Date) {
        self.id = id
        self.name = name
        self.status = status
        self.createdAt = createdAt
    }
}

/// `POST /v1/admin/tenants`.
public struct TenantCreate: Codable, Sendable {
    /// 1 to 100 characters.
    public var name: String

    public init(name: String) { self.name = name }
}

/// `PATCH /v1/admin/tenants/{id}`.
public struct TenantUpdate: Codable, Sendable {
    public var status: Tenant.Status

    public init(status: Tenant.Status) { self.status = status }
}

/// The answer to creating a tenant or replacing its key: the API key is shown this once and
/// stored only as a hash.
public struct TenantKeyIssued: Codable, Sendable, Equatable {
    public var tenant: Tenant
    public var apiKey: String

    public init(tenant: Tenant, apiKey: String) {
        self.tenant = tenant
        self.apiKey = apiKey
    }
}

// MARK: - Customers (tenant admins)

/// `POST /v1/tenants/{tenantId}/customers`.
public struct CustomerEnrolment: Codable, Sendable {
    /// Alphanumeric, 3 to 50 characters; unique within the tenant.
    public var customerRef: String
    /// 4 to 8 digits.
    public var pin: String
    /// 4 to 8 digits, different from `pin`.
    public var duressPin: String

    public init(customerRef: String, pin: String, duressPin: String) {
        self.customerRef = customerRef
        self.pin = pin
        self.duressPin = duressPin
    }
}

/// `PUT /v1/tenants/{tenantId}/customers/{customerRef}/pins`: both PINs are replaced together.
public struct CustomerPins: Codable, Sendable {
    public var pin: String
    public var duressPin: String

    public init(pin: String, duressPin: String) {
        self.pin = pin
        self.duressPin = duressPin
    }
}

/// A tenant's customer, as tenant admins see it. PINs are never returned.
public struct Customer: Codable, Sendable, Equatable {
    public var customerRef: String
    /// The user id the customer's sessions and tokens carry.
    public var userId: String
    public var createdAt: Date
    public var pinsUpdatedAt: Date

    public init(customerRef: String, userId: String, createdAt: Date, pinsUpdatedAt: Date) {
        self.customerRef = customerRef
        self.userId = userId
        self.createdAt = createdAt
        self.pinsUpdatedAt = pinsUpdatedAt
    }
}

// MARK: - PIN sign-in (Transrify's paths)

/// A point on Earth, WGS 84 degrees.
public struct GeoLocation: Codable, Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// `POST /v1/sessions/login`.
public struct PinLoginRequest: Codable, Sendable {
    public var tenantKey: String
    public var customerRef: String
    public var pin: String
    public var device: DeviceInfo?
    /// Where the customer is, when the app may read it.
    public var location: GeoLocation?

    public init(
        tenantKey: String, customerRef: String, pin: String, device: DeviceInfo? = nil, location: GeoLocation? = nil
    ) {
        self.tenantKey = tenantKey
        self.customerRef = customerRef
        self.pin = pin
        self.device = device
        self.location = location
    }
}

/// The outcome of a PIN sign-in.
public enum PinVerdict: String, Codable, Sendable {
    case normal = "NORMAL"
    case duress = "DURESS"
    case fail = "FAIL"
}

/// `POST /v1/sessions/login` → 200. NORMAL and DURESS answers carry the same fields of the
/// same sizes; only `verdict` differs. FAIL carries no session.
public struct PinLoginResponse: Codable, Sendable, Equatable {
    public var verdict: PinVerdict
    /// `PROCEED` after NORMAL or DURESS (the same, so that it reveals nothing), `RETRY` after FAIL.
    public var recommendedAction: String
    public var sessionId: String?
    public var accessToken: String?
    public var tokenType: String?
    public var expiresIn: Int?
    public var refreshToken: String?
    public var refreshExpiresIn: Int?

    enum CodingKeys: String, CodingKey {
        case verdict, recommendedAction, sessionId, accessToken, tokenType, expiresIn, refreshToken, refreshExpiresIn
    }

    public init(
        verdict: PinVerdict, recommendedAction: String, sessionId: String? = nil, accessToken: String? = nil,
        tokenType: String? = nil, expiresIn: Int? = nil, refreshToken: String? = nil, refreshExpiresIn: Int? = nil
    ) {
        self.verdict = verdict
        self.recommendedAction = recommendedAction
        self.sessionId = sessionId
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.refreshExpiresIn = refreshExpiresIn
    }
}

/// `GET /v1/sessions/verify?sessionId=`: whether the session can still be used. Says nothing
/// else about it.
public struct SessionVerification: Codable, Sendable, Equatable {
    public var sessionId: String
    public var valid: Bool

    public init(sessionId: String, valid: Bool) {
        self.sessionId = sessionId
        self.valid = valid
    }
}

// MARK: - Incidents (tenant responders)

/// A customer's duress signal, open until a responder clears it. While open, every sign-in
/// of that customer opens a limited session, whichever PIN is used.
public struct DuressIncident: Codable, Sendable, Equatable {
    public var id: String
    public var customerRef: String
    public var userId: String
    public var raisedAt: Date
    /// The latest duress sign-in of this incident.
    public var lastRaisedAt: Date
    public var location: GeoLocation?
    public var clearedAt: Date?

    public init(
        id: String, customerRef: String, userId: String, raisedAt: Date, lastRaisedAt: Date,
        location: GeoLocation?, clearedAt: Date?
    ) {
        self.id = id
        self.customerRef = customerRef
        self.userId = userId
        self.raisedAt = raisedAt
        self.lastRaisedAt = lastRaisedAt
        self.location = location
        self.clearedAt = clearedAt
    }
}

/// Event `duress.raised` (auth → alerts): a customer signed in under duress. Written in the
/// transaction that opened the session, so it is delivered even if alerts is down then.
public struct DuressRaised: DomainEvent, Equatable {
    public static let eventType: EventType = "duress.raised"
    /// Delivered on the next poll: the sign-in's answer time must not depend on it.
    public static let deliversOnNextPoll = true

    public var incidentId: String
    public var tenantId: String
    public var customerRef: String
    public var userId: String
    public var sessionId: String
    public var location: GeoLocation?
    public var device: DeviceInfo?
    public var raisedAt: Date

    enum CodingKeys: String, CodingKey {
        case incidentId, tenantId, customerRef, userId, sessionId, location, device, raisedAt
    }

    public init(
        incidentId: String, tenantId: String, customerRef: String, userId: String, sessionId: String,
        location: GeoLocation?, device: DeviceInfo?, raisedAt: Date
    ) {
        self.incidentId = incidentId
        self.tenantId = tenantId
        self.customerRef = customerRef
        self.userId = userId
        self.sessionId = sessionId
        self.location = location
        self.device = device
        self.raisedAt = raisedAt
    }
}

/// Event `duress.cleared` (auth → alerts): a tenant responder or admin cleared a duress
/// incident; its alerts close (they leave `/v1/alerts/nearby`, and those told of them hear so).
public struct DuressCleared: DomainEvent, Equatable {
    public static let eventType: EventType = "duress.cleared"

    public var incidentId: String
    public var tenantId: String
    public var clearedAt: Date

    public init(incidentId: String, tenantId: String, clearedAt: Date) {
        self.incidentId = incidentId
        self.tenantId = tenantId
        self.clearedAt = clearedAt
    }
}
