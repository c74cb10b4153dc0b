import AsyncHTTPClient
import Contracts
import Foundation
import JWTKit
import NIOCore
import NIOHTTP1
import ServiceHTTP

/// Firebase Cloud Messaging's HTTP v1 API.
///
/// The access token is OAuth 2's JWT bearer grant: an RS256 JWT signed with the service
/// account's key (`iss` its email, `scope` firebase.messaging, `aud` the token URI, one hour),
/// exchanged at the token URI and reused until a minute before it expires. Each device is one
/// `messages:send` call with the notification, the `data` fields the app's tap handler reads
/// (`type`, `link`, `notificationId` and the ids) and the Android channel named after the type.
/// `UNREGISTERED`, `SENDER_ID_MISMATCH` and an `INVALID_ARGUMENT` about the token mean the token
/// is dead; `401` renews the access token and retries; `429` and `5xx` retry.
struct FCMSender: PushSender {
    let provider = PushProvider.fcm
    let projectID: String
    let baseURL: String
    let http: HTTPClient
    let clock: any WallClock
    let credential: CachedCredential

    struct ServiceAccount: Decodable {
        var projectId: String
        var clientEmail: String
        var privateKey: String
        var tokenUri: String?

        enum CodingKeys: String, CodingKey {
            case projectId = "project_id", clientEmail = "client_email", privateKey = "private_key"
            case tokenUri = "token_uri"
        }
    }

    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    init(settings: AlertsSettings.FCM, http: HTTPClient, clock: any WallClock) throws {
        let file = try FileSystem.readSecret(
            settings.serviceAccountFile, what: "the FCM service account (alerts.fcm.serviceAccountFile)")
        guard let account = try? JSONDecoder().decode(ServiceAccount.self, from: file) else {
            throw ConfigurationError(
                "\(settings.serviceAccountFile.path) is not a service account key (project_id, client_email, private_key)"
            )
        }
        guard let key = try? Insecure.RSA.PrivateKey(pem: account.privateKey) else {
            throw ConfigurationError("\(settings.serviceAccountFile.path): `private_key` is not a PEM RSA key")
        }
        let tokenURL = settings.tokenURL ?? account.tokenUri ?? "https://oauth2.googleapis.com/token"
        self.projectID = account.projectId
        self.baseURL = settings.baseURL
        self.http = http
        self.clock = clock
        self.credential = CachedCredential(clock: clock) { now in
            struct Assertion: JWTPayload {
                var iss: IssuerClaim
                var scope: String
                var aud: AudienceClaim
                var iat: IssuedAtClaim
                var exp: ExpirationClaim
                func verify(using algorithm: some JWTAlgorithm) throws {}
            }
            let issued = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
            let keys = await JWTKeyCollection().add(rsa: key, digestAlgorithm: .sha256)
            let assertion = try await keys.sign(
                Assertion(
                    iss: IssuerClaim(value: account.clientEmail), scope: Self.scope,
                    aud: AudienceClaim(value: tokenURL),
                    iat: IssuedAtClaim(value: issued), exp: ExpirationClaim(value: issued.addingTimeInterval(3600))))
            let response = try await FormPost.send(
                ["grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": assertion], to: tokenURL,
                provider: "Google OAuth", http: http)
            struct Granted: Decodable {
                var accessToken: String
                var expiresIn: Int
                enum CodingKeys: String, CodingKey { case accessToken = "access_token", expiresIn = "expires_in" }
            }
            guard response.status == .ok,
                let granted = try? JSONDecoder().decode(Granted.self, from: Data(response.body.readableBytesView))
            else {
                throw ServiceError(.upstreamUnavailable, "Google refused the access token: \(response.status.code)")
            }
            return (granted.accessToken, issued.addingTimeInterval(TimeInterval(max(granted.expiresIn - 60, 1))))
        }
    }

    func send(_ message: PushMessage, to devices: [DeviceRecord]) async -> [String: PushOutcome] {
        await withTaskGroup(of: (String, PushOutcome).self) { group in
            for device in devices {
                group.addTask { (device.id, await send(message, to: device)) }
            }
            var outcomes: [String: PushOutcome] = [:]
            for await (id, outcome) in group { outcomes[id] = outcome }
            return outcomes
        }
    }

    private func send(_ message: PushMessage, to device: DeviceRecord) async -> PushOutcome {
        let token: String
        do {
            token = try await credential.value()
        } catch {
            return .retry(after: 30, "no FCM access token: \(error)")
        }
        let response: PushHTTP.Answer
        do {
            response = try await PushHTTP.postJSON(
                Self.payload(message, token: device.token, ttl: message.expiresAt.timeIntervalSince(clock.now())),
                to: "\(baseURL)/v1/projects/\(projectID)/messages:send",
                headers: [("authorization", "Bearer \(token)")], http: http)
        } catch {
            return .retry(after: nil, "FCM cannot be reached: \(error)")
        }
        let error = Self.error(in: response.body)
        switch response.status {
        case 200:
            let name = (try? JSONDecoder().decode([String: String].self, from: response.body))?["name"]
            return .delivered(name)
        case 401:
            await credential.invalidate(token)
            return .retry(after: 1, "FCM refused the access token")
        case _ where error.code == "UNREGISTERED" || error.code == "SENDER_ID_MISMATCH":
            return .unregistered(error.code)
        case 400 where error.code == "INVALID_ARGUMENT" && error.message.lowercased().contains("token"):
            return .unregistered("INVALID_ARGUMENT: \(error.message)")
        case 429, 500...:
            return .retry(after: PushHTTP.retryAfter(response.headers), "FCM \(response.status) \(error.code)")
        default:
            return .failed("FCM \(response.status) \(error.code) \(error.message)")
        }
    }

    /// FCM's error: the `errorCode` of its `FcmError` detail when present (UNREGISTERED), else
    /// the status (INVALID_ARGUMENT), and the message.
    static func error(in body: Data) -> (code: String, message: String) {
        struct Envelope: Decodable {
            struct Failure: Decodable {
                struct Detail: Decodable { var errorCode: String? }
                var status: String?
                var message: String?
                var details: [Detail]?
            }
            var error: Failure
        }
        guard let failure = try? JSONDecoder().decode(Envelope.self, from: body).error else { return ("", "") }
        let code = failure.details?.compactMap(\.errorCode).first ?? failure.status ?? ""
        return (code, failure.message ?? "")
    }

    static func payload(_ message: PushMessage, token: String, ttl: TimeInterval) -> Data {
        let ttl = max(0, Int(ttl))
        let body: [String: Any] = [
            "message": [
                "token": token,
                "notification": ["title": message.title, "body": message.body],
                "data": message.appData,
                "android": [
                    "priority": message.critical ? "high" : "normal", "ttl": "\(ttl)s",
                    "notification": [
                        "channel_id": message.type.rawValue, "tag": message.notificationId,
                        "notification_priority": message.silent ? "PRIORITY_MIN" : "PRIORITY_DEFAULT",
                    ],
                ] as [String: Any],
                "apns": [
                    "payload": [
                        "aps": message.silent ? ["badge": message.badge] : ["badge": message.badge, "sound": "default"]
                    ]
                ],
            ] as [String: Any]
        ]
        return (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
    }
}
