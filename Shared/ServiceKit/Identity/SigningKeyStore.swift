import Crypto
import Foundation

/// One of auth's Ed25519 signing keys as stored on disk: a private JWK (RFC 8037) plus its
/// creation time, in a file of its own with mode 0600.
public struct SigningKeyFile: Codable, Sendable, Equatable {
    /// RFC 7638 thumbprint of the public key.
    public var kid: String
    public var kty: String
    public var crv: String
    public var alg: String
    /// Public key, base64url.
    public var x: String
    /// Private key, base64url. Never leaves the data directory.
    public var d: String
    /// When the key was made; the newest key signs.
    public var createdAt: Date

    enum CodingKeys: String, CodingKey { case kid, kty, crv, alg, x, d, createdAt }
}

/// Creates and reads auth's signing keys under a directory (default `<data>/auth/keys`).
/// The CLI creates the first key (`pinhole init`); auth only reads.
public enum SigningKeyStore {
    /// The default directory for a data directory.
    public static func defaultDirectory(dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("auth/keys", isDirectory: true)
    }

    /// Makes a new key and writes it; returns it.
    @discardableResult
    public static func createKey(in directory: URL, clock: any WallClock, entropy: any Entropy) throws -> SigningKeyFile {
        let privateKey = try Curve25519.Signing.PrivateKey(rawRepresentation: entropy.bytes(32))
        let x = Base64URL.encode(privateKey.publicKey.rawRepresentation)
        let thumbprintInput = #"{"crv":"Ed25519","kty":"OKP","x":"\#(x)"}"#
        let kid = Base64URL.encode(SHA256.hash(data: Data(thumbprintInput.utf8)))
        let key = SigningKeyFile(
            kid: kid, kty: "OKP", crv: "Ed25519", alg: "EdDSA", x: x,
            d: Base64URL.encode(privateKey.rawRepresentation), createdAt: clock.now())
        let data = try JSONCoding.encoder().encode(key)
        try FileSystem.writeOwnerOnly(data, to: directory.appendingPathComponent("\(kid).jwk"))
        return key
    }

    /// Creates a key only when the directory has none. Returns true if it made one.
    @discardableResult
    public static func ensureKey(in directory: URL, clock: any WallClock, entropy: any Entropy) throws -> Bool {
        guard try load(from: directory).isEmpty else { return false }
        try createKey(in: directory, clock: clock, entropy: entropy)
        return true
    }

    /// Every key in the directory, oldest first.
    public static func load(from directory: URL) throws -> [SigningKeyFile] {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "jwk" }
        let decoder = JSONCoding.decoder()
        return try files.map { try decoder.decode(SigningKeyFile.self, from: Data(contentsOf: $0)) }
            .sorted { ($0.createdAt, $0.kid) < ($1.createdAt, $1.kid) }
    }
}
