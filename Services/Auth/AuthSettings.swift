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
        let accessSeconds = try reader.integer("auth.accessTokenTtlSeconds", default: 900, in: 60...3600)
        let refreshDays = try reader.integer("auth.refreshTokenTtlDays", default: 30, in: 1...365)
        self.accessTokenTTL = TimeInterval(accessSeconds)
        self.refreshTokenTTL = TimeInterval(refreshDays) * 86_400
        self.argon2 = Argon2Parameters(
            memoryKiB: UInt32(try reader.integer("auth.argon2.memoryKib", default: 19_456, in: 64...4_194_304)),
            iterations: UInt32(try reader.integer("auth.argon2.iterations", default: 2, in: 1...64)),
            parallelism: UInt32(try reader.integer("auth.argon2.parallelism", default: 1, in: 1...16)))
    }
}
