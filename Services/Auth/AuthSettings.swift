import Configuration
import Foundation
import ServiceKit

/// Auth's own settings.
///
/// Keys:
/// - `auth.keysDir` (default `<data.dir>/auth/keys`): the signing keys (`pinhole init` makes
///   the first one).
/// - `auth.accessTokenTtlSeconds` (default 900): access token lifetime.
/// - `auth.refreshTokenTtlDays` (default 30): refresh token lifetime; each refresh starts a
///   new period.
/// - `auth.argon2.memoryKib` (default 19456), `auth.argon2.iterations` (default 2),
///   `auth.argon2.parallelism` (default 1): Argon2id cost, OWASP's recommended minimum.
struct AuthSettings: Sendable {
    let keysDirectory: URL
    let accessTokenTTL: TimeInterval
    let refreshTokenTTL: TimeInterval
    let argon2: Argon2Parameters

    init(reader: ConfigReader, shared: ServiceSettings) throws {
        self.keysDirectory = URL(
            fileURLWithPath: reader.string(
                forKey: "auth.keysDir",
                default: SigningKeyStore.defaultDirectory(dataDirectory: shared.dataDirectory).path),
            isDirectory: true)
        let accessSeconds = reader.int(forKey: "auth.accessTokenTtlSeconds", default: 900)
        let refreshDays = reader.int(forKey: "auth.refreshTokenTtlDays", default: 30)
        guard (60...3600).contains(accessSeconds) else {
            throw ConfigurationError("auth.accessTokenTtlSeconds must be 60...3600")
        }
        guard (1...365).contains(refreshDays) else {
            throw ConfigurationError("auth.refreshTokenTtlDays must be 1...365")
        }
        self.accessTokenTTL = TimeInterval(accessSeconds)
        self.refreshTokenTTL = TimeInterval(refreshDays) * 86_400
        self.argon2 = Argon2Parameters(
            memoryKiB: UInt32(reader.int(forKey: "auth.argon2.memoryKib", default: 19_456)),
            iterations: UInt32(reader.int(forKey: "auth.argon2.iterations", default: 2)),
            parallelism: UInt32(reader.int(forKey: "auth.argon2.parallelism", default: 1)))
        guard argon2.memoryKiB >= 8 * argon2.parallelism, argon2.iterations >= 1, argon2.parallelism >= 1 else {
            throw ConfigurationError("auth.argon2 parameters are out of range")
        }
    }
}
