import Foundation

/// Who carries a device's pushes.
public enum PushProvider: String, Codable, Sendable, CaseIterable {
    /// Apple Push Notification service (iOS apps built with APNs directly).
    case apns
    /// Firebase Cloud Messaging HTTP v1 (Android, and iOS apps using Firebase).
    case fcm
    /// Expo's push service (React Native apps on Expo).
    case expo
}

/// Which APNs environment issued a token: a development build's token only works on sandbox.
public enum APNsEnvironment: String, Codable, Sendable {
    case sandbox
    case production
}

/// `POST /v1/devices`: a push token for the signed-in session.
public struct DeviceRegistration: Codable, Sendable, Equatable {
    public var provider: PushProvider
    public var token: String
    /// The app's bundle id, the `apns-topic` of its pushes (APNs only, required there).
    public var bundleId: String?
    /// APNs only, required there.
    public var environment: APNsEnvironment?
    /// `ios` or `android` (apps registering FCM tokens send it); optional.
    public var platform: String?
    /// The app's own id for the installation (`deviceId`); a new token for the same
    /// installation replaces the old one.
    public var deviceId: String?

    public init(
        provider: PushProvider, token: String, bundleId: String? = nil, environment: APNsEnvironment? = nil,
        platform: String? = nil, deviceId: String? = nil
    ) {
        self.provider = provider
        self.token = token
        self.bundleId = bundleId
        self.environment = environment
        self.platform = platform
        self.deviceId = deviceId
    }
}

/// `PUT /v1/me/push-token` (StreakSnap's `PUT /api/users/me/push-token`): an Expo push token.
public struct PushTokenUpdate: Codable, Sendable, Equatable {
    public var pushToken: String

    public init(pushToken: String) {
        self.pushToken = pushToken
    }
}

/// A registered push device of the signed-in user: its registration as the app sent it
/// (`provider`, `token`, … read through it, as `device.token`), with the server's fields beside
/// it. On the wire it is one flat object.
@dynamicMemberLookup
public struct Device: Codable, Sendable, Equatable {
    public var id: String
    public var registration: DeviceRegistration
    /// Whether it belongs to the session making the request.
    public var currentSession: Bool
    public var createdAt: Date
    /// The last time the app registered this token.
    public var lastRefreshedAt: Date

    enum CodingKeys: String, CodingKey { case id, currentSession, createdAt, lastRefreshedAt }

    public init(
        id: String, registration: DeviceRegistration, currentSession: Bool, createdAt: Date, lastRefreshedAt: Date
    ) {
        self.id = id
        self.registration = registration
        self.currentSession = currentSession
        self.createdAt = createdAt
        self.lastRefreshedAt = lastRefreshedAt
    }

    public subscript<Value>(dynamicMember field: KeyPath<DeviceRegistration, Value>) -> Value {
        registration[keyPath: field]
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id), registration: try DeviceRegistration(from: decoder),
            currentSession: try container.decode(Bool.self, forKey: .currentSession),
            createdAt: try container.decode(Date.self, forKey: .createdAt),
            lastRefreshedAt: try container.decode(Date.self, forKey: .lastRefreshedAt))
    }

    public func encode(to encoder: any Encoder) throws {
        try registration.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(currentSession, forKey: .currentSession)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(lastRefreshedAt, forKey: .lastRefreshedAt)
    }
}
