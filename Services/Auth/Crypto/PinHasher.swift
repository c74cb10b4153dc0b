import Crypto
import Foundation
import ServiceHTTP

/// Hashes PINs: HMAC-SHA256 with a server-side pepper first, then Argon2id.
///
/// A 4-digit PIN has only 10 000 values, so a stolen database alone must not be enough to try
/// them all: without the pepper (a file in the data directory, never in the database) no guess
/// can be checked. The tenant id is mixed in as well, so equal PINs of two tenants hash apart.
struct PinHasher: Sendable {
    let hasher: PasswordHasher
    private let pepper: SymmetricKey

    init(hasher: PasswordHasher, pepper: SymmetricKey) {
        self.hasher = hasher
        self.pepper = pepper
    }

    /// Reads the pepper, making it (32 random bytes, mode 0600) on first start.
    static func loadPepper(from file: URL, entropy: any Entropy) throws -> SymmetricKey {
        SymmetricKey(data: try FileSystem.secret(in: file, entropy: entropy))
    }

    /// The Argon2id hash of a PIN for a tenant.
    func hash(_ pin: String, tenantID: String) async throws -> String {
        try await hasher.hash(peppered(pin, tenantID: tenantID))
    }

    /// Whether `pin` matches `encoded`.
    func verify(_ pin: String, tenantID: String, against encoded: String) async -> Bool {
        await hasher.verify(peppered(pin, tenantID: tenantID), against: encoded)
    }

    /// The same work as ``verify(_:tenantID:against:)`` with nothing to match; always false.
    func verifyUnknown(_ pin: String, tenantID: String) async -> Bool {
        await hasher.verifyUnknown(peppered(pin, tenantID: tenantID))
    }

    private func peppered(_ pin: String, tenantID: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(tenantID)\u{0}\(pin)".utf8), using: pepper)
        return Hex.encode(mac)
    }
}
