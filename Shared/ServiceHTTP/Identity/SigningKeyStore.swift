import Crypto
import Foundation

/// One of auth's P-256 (ES256) signing keys as stored on disk: a private JWK (RFC 7518)
/// plus its creation time, in a file of its own with mode 0600.
///
/// ES256 was chosen over EdDSA by measurement (docs/PERFORMANCE.md): on this project's
/// machines P-256 verification, which every request pays twice, is about 20 % faster.
public struct SigningKeyFile: Codable, Sendable, Equatable {
    /// RFC 7638 thumbprint of the public key.
    public var kid: String
    public var kty: String
    public var crv: String
    public var alg: String
    /// Public point, base64url coordinates.
    public var x: String
    public var y: String
    /// Private key, base64url. Never leaves the data directory.
    public var d: String
    /// When the key was made; the newest key signs.
    public var createdAt: Date

    enum CodingKeys: String, CodingKey { case kid, kty, crv, alg, x, y, d, createdAt }
}

/// The one algorithm Pinhole signs and accepts access tokens with.
public enum TokenAlgorithm {
    /// JOSE name.
    public static let name = "ES256"
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
    public static func createKey(in directory: URL, clock: any WallClock, entropy: any Entropy) throws -> SigningKeyFile
    {
        // 32 random bytes are a valid P-256 scalar except with probability ~2^-32; retry then.
        var candidate: P256.Signing.PrivateKey?
        while candidate == nil {
            candidate = try? P256.Signing.PrivateKey(rawRepresentation: entropy.bytes(32))
        }
        let privateKey = candidate!
        let point = privateKey.publicKey.x963Representation  // 0x04 || x || y
        let x = Base64URL.encode(point[1..<33])
        let y = Base64URL.encode(point[33..<65])
        let thumbprintInput = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        let kid = Base64URL.encode(SHA256.hash(data: Data(thumbprintInput.utf8)))
        let key = SigningKeyFile(
            kid: kid, kty: "EC", crv: "P-256", alg: TokenAlgorithm.name, x: x, y: y,
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
