import AsyncHTTPClient
import Contracts
import Foundation
import JWTKit
import ServiceHTTP

/// Apple Push Notification service over HTTP/2 with token-based authentication.
///
/// Each push is one stream of the client's connection to the device's environment (never a
/// connection per notification). The provider token is an ES256 JWT from the team's `.p8`
/// key (`kid` the key id, `iss` the team, `iat` now), reused for 50 minutes: Apple refuses
/// tokens older than an hour and ones renewed more often than every 20 minutes. Apple's
/// answers map as its documentation says: `410 Unregistered` and `400 BadDeviceToken` (or
/// `DeviceTokenNotForTopic`) mean the token is dead; `403 ExpiredProviderToken` renews the
/// token and retries; `429` and `5xx` retry (after `Retry-After` if sent); other refusals are
/// final for that message. `apns-collapse-id` is the notification id, so a notification sent
/// twice (a retry after a crash) replaces itself on the device instead of showing twice.
struct APNsSender: PushSender {
    let provider = PushProvider.apns
    let settings: AlertsSettings.APNs
    let http: HTTPClient
    let clock: any WallClock
    let credential: CachedCredential

    init(settings: AlertsSettings.APNs, http: HTTPClient, clock: any WallClock) throws {
        self.settings = settings
        self.http = http
        self.clock = clock
        let pem = try FileSystem.readSecret(settings.keyFile, what: "the APNs key (alerts.apns.keyFile)")
        let key: ES256PrivateKey
        do {
            key = try ES256PrivateKey(pem: String(decoding: pem, as: UTF8.self))
        } catch {
            throw ConfigurationError("\(settings.keyFile.path) is not a PEM P-256 private key (an AuthKey_….p8 file)")
        }
        let (keyID, teamID) = (settings.keyID, settings.teamID)
        self.credential = CachedCredential(clock: clock) { now in
            struct ProviderToken: JWTPayload {
                var iss: IssuerClaim
                var iat: IssuedAtClaim
                func verify(using algorithm: some JWTAlgorithm) throws {}
            }
            let issued = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
            let keys = await JWTKeyCollection().add(ecdsa: key, kid: JWKIdentifier(string: keyID))
            let token = try await keys.sign(
                ProviderToken(iss: IssuerClaim(value: teamID), iat: IssuedAtClaim(value: issued)),
                kid: JWKIdentifier(string: keyID))
            return (token, issued.addingTimeInterval(50 * 60))
        }
    }

    func send(_ message: PushMessage, to devices: [DeviceRecord]) async -> [String: PushOutcome] {
        let body = Self.payload(message, criticalAlerts: settings.criticalAlerts)
        return await withTaskGroup(of: (String, PushOutcome).self) { group in
            for device in devices {
                group.addTask { (device.id, await send(body, message, to: device)) }
            }
            var outcomes: [String: PushOutcome] = [:]
            for await (id, outcome) in group { outcomes[id] = outcome }
            return outcomes
        }
    }

    private func send(_ body: Data, _ message: PushMessage, to device: DeviceRecord) async -> PushOutcome {
        guard let topic = device.bundleId, let environment = device.environment else {
            return .unregistered("no bundle id or environment")
        }
        let token: String
        do {
            token = try await credential.value()
        } catch {
            return .retry(after: 60, "the APNs key cannot sign: \(error)")
        }
        let base = environment == .production ? settings.productionURL : settings.sandboxURL
        var headers = [
            ("authorization", "bearer \(token)"), ("apns-topic", topic), ("apns-push-type", "alert"),
            ("apns-priority", message.silent ? "5" : "10"),
            ("apns-expiration", "\(Int(message.expiresAt.timeIntervalSince1970))"),
        ]
        // A notification pushed twice (a retry after a crash) replaces itself on the device.
        headers.append(("apns-collapse-id", message.notificationId))
        let response: PushHTTP.Answer
        do {
            response = try await PushHTTP.postJSON(
                body, to: "\(base)/3/device/\(device.token)", headers: headers, http: http)
        } catch {
            return .retry(after: nil, "APNs cannot be reached: \(error)")
        }
        guard response.status != 200 else { return .delivered(response.headers["apns-id"]) }
        let reason = (try? JSONDecoder().decode([String: String].self, from: response.body))?["reason"] ?? ""
        switch response.status {
        case 410:
            return .unregistered(reason.isEmpty ? "Unregistered" : reason)
        case 400 where ["BadDeviceToken", "DeviceTokenNotForTopic"].contains(reason):
            return .unregistered(reason)
        case 403 where ["ExpiredProviderToken", "InvalidProviderToken"].contains(reason):
            await credential.invalidate(token)
            return .retry(after: 1, reason)
        case 429, 500...:
            return .retry(after: PushHTTP.retryAfter(response.headers), "APNs \(response.status) \(reason)")
        default:
            return .failed("APNs \(response.status) \(reason)")
        }
    }

    /// The JSON Apple delivers to the app: `aps` (alert, badge, sound, thread, interruption
    /// level) and Pinhole's own fields beside it.
    struct Payload: Encodable {
        struct Alert: Encodable {
            var title: String
            var body: String
        }
        /// A sound by name, or Apple's critical alert sound (plays through silent mode and
        /// Do Not Disturb; the app needs Apple's critical alerts entitlement).
        enum Sound: Encodable {
            case named(String)
            case critical

            enum CodingKeys: String, CodingKey { case critical, name, volume }

            func encode(to encoder: any Encoder) throws {
                switch self {
                case .named(let name):
                    var container = encoder.singleValueContainer()
                    try container.encode(name)
                case .critical:
                    var container = encoder.container(keyedBy: CodingKeys.self)
                    try container.encode(1, forKey: .critical)
                    try container.encode("default", forKey: .name)
                    try container.encode(1.0, forKey: .volume)
                }
            }
        }
        struct APS: Encodable {
            var alert: Alert
            var badge: Int
            var sound: Sound?
            var threadId: String?
            var interruptionLevel: String

            enum CodingKeys: String, CodingKey {
                case alert, badge, sound
                case threadId = "thread-id"
                case interruptionLevel = "interruption-level"
            }
        }
        var aps: APS
        var type: String
        var notificationId: String
        var link: String?
        var data: [String: String]
    }

    /// Encoded with `Codable` rather than `JSONSerialization`: a fan-out encodes one per push,
    /// and the dictionary route cost a tenth of alerts' CPU there. A critical type goes
    /// `time-sensitive`, or with `criticalAlerts` (an app holding Apple's entitlement)
    /// `critical` with the critical sound.
    static func payload(_ message: PushMessage, criticalAlerts: Bool = false) -> Data {
        let critical = message.critical && criticalAlerts
        let level =
            critical ? "critical" : message.critical ? "time-sensitive" : message.silent ? "passive" : "active"
        let payload = Payload(
            aps: Payload.APS(
                alert: Payload.Alert(title: message.title, body: message.body), badge: message.badge,
                sound: critical ? .critical : message.silent ? nil : .named("default"), threadId: message.threadId,
                interruptionLevel: level),
            type: message.type.rawValue, notificationId: message.notificationId, link: message.link,
            data: message.data)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(payload)) ?? Data()
    }
}
