import Foundation

/// `POST /v1/webhooks/revenuecat`: what RevenueCat sends (its field names), with the fields
/// Pinhole reads. The app sets RevenueCat's `appUserID` to the Pinhole user id.
public struct RevenueCatWebhook: Codable, Sendable {
    public var apiVersion: String?
    public var event: RevenueCatEvent

    enum CodingKeys: String, CodingKey {
        case apiVersion = "api_version"
        case event
    }

    public init(apiVersion: String? = "1.0", event: RevenueCatEvent) {
        self.apiVersion = apiVersion
        self.event = event
    }
}

/// One RevenueCat event.
public struct RevenueCatEvent: Codable, Sendable {
    /// Unique per event; a redelivery has the same id.
    public var id: String
    /// `INITIAL_PURCHASE`, `RENEWAL`, `CANCELLATION`, `EXPIRATION`, `BILLING_ISSUE`,
    /// `NON_RENEWING_PURCHASE`, `TEST`, … (others are acknowledged and ignored).
    public var type: String
    public var appUserId: String?
    public var productId: String?
    public var eventTimestampMs: Int64?
    public var purchasedAtMs: Int64?
    public var expirationAtMs: Int64?
    public var environment: String?

    enum CodingKeys: String, CodingKey {
        case id, type, environment
        case appUserId = "app_user_id"
        case productId = "product_id"
        case eventTimestampMs = "event_timestamp_ms"
        case purchasedAtMs = "purchased_at_ms"
        case expirationAtMs = "expiration_at_ms"
    }

    public init(
        id: String, type: String, appUserId: String?, productId: String?, eventTimestampMs: Int64? = nil,
        purchasedAtMs: Int64? = nil, expirationAtMs: Int64? = nil, environment: String? = "PRODUCTION"
    ) {
        self.id = id
        self.type = type
        self.appUserId = appUserId
        self.productId = productId
        self.eventTimestampMs = eventTimestampMs
        self.purchasedAtMs = purchasedAtMs
        self.expirationAtMs = expirationAtMs
        self.environment = environment
    }
}

/// The answer to a webhook delivery.
public struct WebhookReceipt: Codable, Sendable, Equatable {
    /// `applied`, `duplicate` or `ignored`.
    public var status: String

    public init(status: String) { self.status = status }
}

/// Event `recovery_tokens.purchased` (auth → streak): a token pack was bought.
public struct RecoveryTokensPurchased: DomainEvent, Equatable {
    public static let eventType: EventType = "recovery_tokens.purchased"

    public var userId: String
    public var tokens: Int
    public var productId: String
    /// The RevenueCat event id; streak credits each purchase once.
    public var purchaseId: String

    public init(userId: String, tokens: Int, productId: String, purchaseId: String) {
        self.userId = userId
        self.tokens = tokens
        self.productId = productId
        self.purchaseId = purchaseId
    }
}

// MARK: - Phone verification

/// `POST /v1/me/phone/verification`: send a code to this number.
public struct PhoneVerificationStart: Codable, Sendable {
    /// E.164: `+` and 8 to 15 digits.
    public var phoneNumber: String

    public init(phoneNumber: String) { self.phoneNumber = phoneNumber }
}

/// The answer to a start: when the code stops working.
public struct PhoneVerificationStarted: Codable, Sendable, Equatable {
    public var phoneNumber: String
    public var expiresAt: Date

    public init(phoneNumber: String, expiresAt: Date) {
        self.phoneNumber = phoneNumber
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/me/phone/verification/check`.
public struct PhoneVerificationCheck: Codable, Sendable {
    public var phoneNumber: String
    public var code: String

    public init(phoneNumber: String, code: String) {
        self.phoneNumber = phoneNumber
        self.code = code
    }
}

/// A verified phone number.
public struct VerifiedPhone: Codable, Sendable, Equatable {
    public var phoneNumber: String
    public var verifiedAt: Date

    public init(phoneNumber: String, verifiedAt: Date) {
        self.phoneNumber = phoneNumber
        self.verifiedAt = verifiedAt
    }
}
