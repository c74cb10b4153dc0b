import Configuration
import Foundation
import ServiceHTTP

/// Alerts' own settings: the push providers. A provider without its credentials is off, and
/// its devices are kept but not pushed to (logged once at start).
///
/// Keys:
/// - `alerts.apns.keyFile` (a `.p8` file, secret), `alerts.apns.keyId`, `alerts.apns.teamId`:
///   APNs token-based authentication; all three turn APNs on.
/// - `alerts.apns.productionUrl` (default `https://api.push.apple.com`),
///   `alerts.apns.sandboxUrl` (default `https://api.sandbox.push.apple.com`): where a device's
///   pushes go, by the environment it registered with.
/// - `alerts.apns.criticalAlerts` (default false): critical types (a duress alert) go as
///   Apple's critical alerts (`interruption-level: critical`, the critical sound) instead of
///   `time-sensitive`; only for apps holding Apple's critical alerts entitlement.
/// - `alerts.fcm.serviceAccountFile` (secret): the Firebase service account's JSON key
///   (`project_id`, `client_email`, `private_key`, `token_uri`); turns FCM on.
/// - `alerts.fcm.baseUrl` (default `https://fcm.googleapis.com`), `alerts.fcm.tokenUrl`
///   (default: the key's `token_uri`).
/// - `alerts.expo.enabled` (default true), `alerts.expo.baseUrl` (default `https://exp.host`),
///   `alerts.expo.accessToken` (secret, optional: Expo's enhanced push security),
///   `alerts.expo.receiptDelaySeconds` (default 900): when push receipts are fetched.
/// - `alerts.push.trustRootsFile` (optional): extra PEM certificate authorities trusted for the
///   providers (a TLS-inspecting proxy, or local fakes).
/// - `alerts.push.concurrency` (default 16): groups of due pushes delivered at the same time
///   (a group is up to 32 notifications whose plans are read together). 16 groups keep about
///   as many pushes in flight as APNs allows streams on a connection (500); more only wait in
///   the HTTP client's queue, with their timers (`docs/PERFORMANCE.md`). Pushes a second are at
///   most those in flight over the provider's round trip: raise it for a provider far away.
/// - `alerts.stream.heartbeatSeconds` (default 25): how often a quiet live stream sends a
///   comment line (proxies close silent connections; a client gone over HTTP/1.1 is noticed then).
/// - `alerts.stream.perUser` (default 16): live streams one user may hold open.
/// - `alerts.stream.maxOpen` (default 20,000): live streams this process holds, all users
///   together; the next is refused with 503. Each one the gateway carries is an HTTP/2 stream
///   on its connection to alerts, so alerts' internal listener allows that many more streams.
/// - `alerts.duress.radiusMeters` (default 1,000, 100–10,000): a duress alert is pushed to the
///   tenant's users whose last known position is this close to it.
/// - `alerts.duress.positionMaxAgeSeconds` (default 1,800): how long a user's last known
///   position (from `GET /v1/alerts/nearby`) counts; older ones are deleted.
/// - `alerts.messages.newConversationsPerDay` (default 100): conversations a user may open a day
///   by writing first; more is 429, so message requests cannot be sprayed.
struct AlertsSettings: Sendable {
    struct APNs: Sendable {
        var keyFile: URL
        var keyID: String
        var teamID: String
        var productionURL: String
        var sandboxURL: String
        var criticalAlerts: Bool
    }

    struct FCM: Sendable {
        var serviceAccountFile: URL
        var baseURL: String
        var tokenURL: String?
    }

    struct Expo: Sendable {
        var baseURL: String
        var accessToken: String?
        var receiptDelay: TimeInterval
    }

    let apns: APNs?
    let fcm: FCM?
    let expo: Expo?
    let trustRootsFile: URL?
    let pushConcurrency: Int
    let streamHeartbeat: Duration
    let streamsPerUser: Int
    let streamsOpenLimit: Int
    let duressReach: AlertsStore.DuressReach
    let newConversations: RatePolicy

    init(reader: ConfigReader) throws {
        let keyFile = reader.string(forKey: "alerts.apns.keyFile", isSecret: true)
        let keyID = reader.string(forKey: "alerts.apns.keyId")
        let teamID = reader.string(forKey: "alerts.apns.teamId")
        if let keyFile, let keyID, let teamID {
            self.apns = APNs(
                keyFile: URL(fileURLWithPath: keyFile), keyID: keyID, teamID: teamID,
                productionURL: Self.base(
                    reader.string(forKey: "alerts.apns.productionUrl", default: "https://api.push.apple.com")),
                sandboxURL: Self.base(
                    reader.string(forKey: "alerts.apns.sandboxUrl", default: "https://api.sandbox.push.apple.com")),
                criticalAlerts: try reader.boolean("alerts.apns.criticalAlerts", default: false))
        } else if keyFile != nil || keyID != nil || teamID != nil {
            throw ConfigurationError("APNs needs all of alerts.apns.keyFile, alerts.apns.keyId and alerts.apns.teamId")
        } else {
            self.apns = nil
        }
        if let file = reader.string(forKey: "alerts.fcm.serviceAccountFile", isSecret: true) {
            self.fcm = FCM(
                serviceAccountFile: URL(fileURLWithPath: file),
                baseURL: Self.base(reader.string(forKey: "alerts.fcm.baseUrl", default: "https://fcm.googleapis.com")),
                tokenURL: reader.string(forKey: "alerts.fcm.tokenUrl"))
        } else {
            self.fcm = nil
        }
        if try reader.boolean("alerts.expo.enabled", default: true) {
            self.expo = Expo(
                baseURL: Self.base(reader.string(forKey: "alerts.expo.baseUrl", default: "https://exp.host")),
                accessToken: reader.string(forKey: "alerts.expo.accessToken", isSecret: true),
                receiptDelay: TimeInterval(
                    try reader.integer("alerts.expo.receiptDelaySeconds", default: 900, in: 1...86_400)))
        } else {
            self.expo = nil
        }
        self.trustRootsFile = reader.string(forKey: "alerts.push.trustRootsFile").map { URL(fileURLWithPath: $0) }
        self.pushConcurrency = try reader.integer("alerts.push.concurrency", default: 16, in: 1...1024)
        self.streamHeartbeat = .seconds(try reader.integer("alerts.stream.heartbeatSeconds", default: 25, in: 1...300))
        self.streamsPerUser = try reader.integer("alerts.stream.perUser", default: 16, in: 1...1000)
        self.streamsOpenLimit = try reader.integer("alerts.stream.maxOpen", default: 20_000, in: 1...1_000_000)
        self.duressReach = AlertsStore.DuressReach(
            radius: Double(try reader.integer("alerts.duress.radiusMeters", default: 1_000, in: 100...10_000)),
            positionMaxAge: TimeInterval(
                try reader.integer("alerts.duress.positionMaxAgeSeconds", default: 1_800, in: 60...86_400)))
        self.newConversations = RatePolicy(
            name: "conversations",
            limit: try reader.integer("alerts.messages.newConversationsPerDay", default: 100, in: 1...100_000),
            window: 86_400)
    }

    private static func base(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}
