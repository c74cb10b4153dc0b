import Configuration
import Foundation
import ServiceHTTP
import SwiftASN1
import X509

/// Auth's own settings.
///
/// Keys:
/// - `auth.keysDir` (default `<data.dir>/auth/keys`): the signing keys (`pinhole init` makes
///   the first one).
/// - `auth.accessTokenTtlSeconds` (default 900): access token lifetime.
/// - `auth.refreshTokenTtlDays` (default 30): refresh token lifetime; each refresh starts a
///   new period.
/// - `auth.refreshGraceSeconds` (default 10): a refresh token presented again this soon after
///   it was rotated gets the same new token back (a client that lost the answer); later, the
///   whole session is revoked.
/// - `auth.keysReloadSeconds` (default 10): how often the keys directory is re-read, so that a
///   key added by `pinhole keys rotate` starts signing without a restart.
/// - `auth.guestTokens` (default true): whether `POST /v1/auth/guest` hands out read-only tokens.
/// - `auth.pinPepperFile` (default `<data.dir>/auth/pin-pepper`): 32 secret bytes mixed into
///   every PIN hash; made at first start with mode 0600. Losing it invalidates every PIN.
/// - `auth.pin.customerFreeAttempts` (default 5), `auth.pin.deviceFreeAttempts` (default 10):
///   failed PIN sign-ins allowed before delays start, per customer and per device.
/// - `auth.pin.maxCustomerDelaySeconds` (default 300), `auth.pin.maxDeviceDelaySeconds`
///   (default 3600): the longest delay; delays double with each further failure.
/// - `auth.apple.bundleIds` (comma-separated; default none, which turns Apple sign-in off): the
///   apps whose identity tokens are accepted.
/// - `auth.apple.baseUrl` (default `https://appleid.apple.com`): Apple's keys, token and revoke
///   endpoints, and the expected `iss`.
/// - `auth.apple.teamId`, `auth.apple.keyId`, `auth.apple.privateKeyFile` (a `.p8` file,
///   secret): the client secret for exchanging authorization codes and revoking tokens.
/// - `auth.revenuecat.webhookSecret` (secret; default unset, which turns the webhook off): the
///   `Authorization` value RevenueCat sends.
/// - `auth.revenuecat.tokenPacks` (default `recovery_token_pack_3=3,recovery_token_pack_10=10`):
///   products that are packs of streak recovery tokens, and how many tokens each holds.
/// - `auth.phone.codeTtlSeconds` (default 600), `auth.phone.maxAttempts` (default 5),
///   `auth.phone.startsPerHour` (default 5): one-time code lifetime, tries per code, codes per
///   user per hour.
/// - `auth.twilio.accountSid`, `auth.twilio.authToken` (secret), `auth.twilio.serviceSid`,
///   `auth.twilio.baseUrl` (default `https://verify.twilio.com`): when the SID is set, codes
///   are sent and checked by Twilio Verify instead of written to the `sms_outbox` table.
/// - `auth.appAttest.appIds` (comma-separated `TEAMID.bundle.id`; default none, which turns App
///   Attest off): the apps whose App Attest keys and assertions are accepted.
/// - `auth.appAttest.environment` (default `production`; or `development` for Xcode builds):
///   which App Attest environment's keys are accepted.
/// - `auth.appAttest.rootCertificateFile` (default: Apple's App Attestation Root CA, built in):
///   a PEM file of the root the attestation certificates must lead to.
/// - `auth.appAttest.challengeTtlSeconds` (default 300): how long a challenge can be used.
/// - `auth.deletionCheckSeconds` (default 2): how often finished account deletions are
///   completed.
/// - `auth.argon2.memoryKib` (default 19456), `auth.argon2.iterations` (default 2),
///   `auth.argon2.parallelism` (default 1): Argon2id cost, OWASP's recommended minimum.
struct AuthSettings: Sendable {
    let keysDirectory: URL
    let accessTokenTTL: TimeInterval
    let refreshTokenTTL: TimeInterval
    let argon2: Argon2Parameters
    let refreshGrace: TimeInterval
    let keysReloadInterval: TimeInterval
    let guestTokens: Bool
    let pinPepperFile: URL
    let pinThrottle: PinThrottle.Policy
    let apple: AppleSettings
    let revenueCatSecret: String?
    let tokenPacks: [String: Int]
    let phone: PhoneSettings
    let deletionCheckInterval: TimeInterval
    let appAttest: AppAttestSettings

    init(reader: ConfigReader, shared: ServiceSettings) throws {
        self.keysDirectory = URL(
            fileURLWithPath: reader.string(
                forKey: "auth.keysDir",
                default: SigningKeyStore.defaultDirectory(dataDirectory: shared.dataDirectory).path),
            isDirectory: true)
        let accessSeconds = try reader.integer("auth.accessTokenTtlSeconds", default: 900, in: 60...3600)
        let refreshDays = try reader.integer("auth.refreshTokenTtlDays", default: 30, in: 1...365)
        self.accessTokenTTL = TimeInterval(accessSeconds)
        self.refreshTokenTTL = TimeInterval(refreshDays) * 86_400
        self.argon2 = Argon2Parameters(
            memoryKiB: UInt32(try reader.integer("auth.argon2.memoryKib", default: 19_456, in: 64...4_194_304)),
            iterations: UInt32(try reader.integer("auth.argon2.iterations", default: 2, in: 1...64)),
            parallelism: UInt32(try reader.integer("auth.argon2.parallelism", default: 1, in: 1...16)))
        self.refreshGrace = TimeInterval(try reader.integer("auth.refreshGraceSeconds", default: 10, in: 0...300))
        self.keysReloadInterval = TimeInterval(try reader.integer("auth.keysReloadSeconds", default: 10, in: 1...3600))
        self.guestTokens = try reader.boolean("auth.guestTokens", default: true)
        self.pinPepperFile = URL(
            fileURLWithPath: reader.string(
                forKey: "auth.pinPepperFile",
                default: shared.dataDirectory.appendingPathComponent("auth/pin-pepper").path))
        self.apple = AppleSettings(
            bundleIDs: Set(
                reader.string(forKey: "auth.apple.bundleIds", default: "").split(separator: ",")
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }),
            baseURL: String(
                reader.string(forKey: "auth.apple.baseUrl", default: "https://appleid.apple.com").trimmingSuffix("/")),
            teamID: reader.string(forKey: "auth.apple.teamId"), keyID: reader.string(forKey: "auth.apple.keyId"),
            privateKeyFile: reader.string(forKey: "auth.apple.privateKeyFile", isSecret: true).map {
                URL(fileURLWithPath: $0)
            })
        self.revenueCatSecret = reader.string(forKey: "auth.revenuecat.webhookSecret", isSecret: true)
        var packs: [String: Int] = [:]
        for entry in reader.string(
            forKey: "auth.revenuecat.tokenPacks", default: "recovery_token_pack_3=3,recovery_token_pack_10=10"
        ).split(separator: ",") {
            let parts = entry.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let count = Int(parts[1]), count > 0 else {
                throw ConfigurationError("auth.revenuecat.tokenPacks must look like product=3,other=10")
            }
            packs[parts[0]] = count
        }
        self.tokenPacks = packs
        var phone = PhoneSettings(
            codeTTL: TimeInterval(try reader.integer("auth.phone.codeTtlSeconds", default: 600, in: 60...86_400)),
            maxAttempts: try reader.integer("auth.phone.maxAttempts", default: 5, in: 1...20),
            startsPerHour: try reader.integer("auth.phone.startsPerHour", default: 5, in: 1...100))
        if let sid = reader.string(forKey: "auth.twilio.accountSid") {
            guard let token = reader.string(forKey: "auth.twilio.authToken", isSecret: true),
                let service = reader.string(forKey: "auth.twilio.serviceSid")
            else {
                throw ConfigurationError(
                    "auth.twilio.accountSid needs auth.twilio.authToken and auth.twilio.serviceSid")
            }
            phone.twilio = (
                reader.string(forKey: "auth.twilio.baseUrl", default: "https://verify.twilio.com"), sid, token, service
            )
        }
        self.phone = phone
        self.appAttest = AppAttestSettings(
            appIDs: Set(
                reader.string(forKey: "auth.appAttest.appIds", default: "").split(separator: ",")
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }),
            environment: try Self.appAttestEnvironment(
                reader.string(forKey: "auth.appAttest.environment", default: "production")),
            rootCertificateFile: reader.string(forKey: "auth.appAttest.rootCertificateFile").map {
                URL(fileURLWithPath: $0)
            },
            challengeTTL: TimeInterval(
                try reader.integer("auth.appAttest.challengeTtlSeconds", default: 300, in: 30...3600)))
        self.deletionCheckInterval = TimeInterval(
            try reader.integer("auth.deletionCheckSeconds", default: 2, in: 1...3600))
        self.pinThrottle = PinThrottle.Policy(
            customerFreeAttempts: try reader.integer("auth.pin.customerFreeAttempts", default: 5, in: 1...100),
            deviceFreeAttempts: try reader.integer("auth.pin.deviceFreeAttempts", default: 10, in: 1...1000),
            maxCustomerDelay: TimeInterval(
                try reader.integer("auth.pin.maxCustomerDelaySeconds", default: 300, in: 1...86_400)),
            maxDeviceDelay: TimeInterval(
                try reader.integer("auth.pin.maxDeviceDelaySeconds", default: 3600, in: 1...86_400)))
    }
}

extension AuthSettings {
    static func appAttestEnvironment(_ text: String) throws -> AppAttest.Environment {
        guard let environment = AppAttest.Environment(rawValue: text) else {
            throw ConfigurationError("auth.appAttest.environment must be production or development")
        }
        return environment
    }
}

/// Sign in with Apple settings (all under `auth.apple.`); Apple sign-in is off until
/// `bundleIds` names at least one app.
struct AppleSettings: Sendable {
    /// The apps (Apple `client_id`s) whose identity tokens are accepted as `aud`.
    var bundleIDs: Set<String>
    /// Apple's base URL (`https://appleid.apple.com`); also the expected `iss`.
    var baseURL: String
    /// Team, key id and `.p8` key file for the client secret; without them codes are not
    /// exchanged and deletion cannot revoke Apple tokens.
    var teamID: String?
    var keyID: String?
    var privateKeyFile: URL?
    /// How recent an identity token must be to confirm an account deletion.
    var recentSignIn: TimeInterval = 600

    var isEnabled: Bool { !bundleIDs.isEmpty }
}

/// App Attest settings (`auth.appAttest.*`); off until `appIds` names at least one app.
struct AppAttestSettings: Sendable {
    var appIDs: Set<String>
    var environment: AppAttest.Environment
    /// Nil: Apple's root.
    var rootCertificateFile: URL?
    var challengeTTL: TimeInterval

    /// The verifier, or nil while App Attest is off; a root file that cannot be read stops auth.
    func verifier() throws -> AppAttest? {
        guard !appIDs.isEmpty else { return nil }
        let pem = try rootCertificateFile.map { try String(contentsOf: $0, encoding: .utf8) } ?? AppAttestRoot.applePEM
        do {
            return AppAttest(appIDs: appIDs, environment: environment, roots: [try Certificate(pemEncoded: pem)])
        } catch {
            throw ConfigurationError("auth.appAttest.rootCertificateFile is not a PEM certificate: \(error)")
        }
    }
}

/// Phone verification settings (`auth.phone.*`, `auth.twilio.*`).
struct PhoneSettings: Sendable {
    var codeTTL: TimeInterval = 600
    var maxAttempts = 5
    var startsPerHour = 5
    /// Set to use Twilio Verify instead of the SMS outbox.
    var twilio: (baseURL: String, accountSID: String, authToken: String, serviceSID: String)?
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> Substring {
        var text = Substring(self)
        while text.hasSuffix(suffix) { text = text.dropLast(suffix.count) }
        return text
    }
}
