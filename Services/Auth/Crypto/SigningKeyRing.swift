import Contracts
import Crypto
import Foundation
import JWTKit
import ServiceHTTP

/// Auth's signing keys, loaded from the keys directory: the newest signs; an older key stays
/// in the JWKS until every token it signed has expired, then drops out.
///
/// `pinhole keys rotate` writes a new key into the directory; ``KeyRingWatcher`` notices it
/// and the new key signs from then on. Verifiers meeting its unknown `kid` refetch the JWKS,
/// so nothing restarts.
actor SigningKeyRing: PublicKeySource {
    private let directory: URL
    private let clock: any WallClock
    /// How long a replaced key stays published: the access-token lifetime plus the time it
    /// may take to notice a new key, plus verifiers' clock leeway.
    private let retention: TimeInterval
    private var files: [SigningKeyFile] = []
    private var signer = JWTKeyCollection()

    init(directory: URL, clock: any WallClock = SystemClock(), retention: TimeInterval = 3600) async throws {
        self.directory = directory
        self.clock = clock
        self.retention = retention
        try await reload()
    }

    /// Re-reads the directory when its set of keys changed. Returns whether it did.
    @discardableResult
    func reloadIfChanged() async throws -> Bool {
        let kids = Set(try SigningKeyStore.load(from: directory).map(\.kid))
        guard kids != Set(files.map(\.kid)) else { return false }
        try await reload()
        return true
    }

    /// Re-reads the directory.
    func reload() async throws {
        let files = try SigningKeyStore.load(from: directory)
        guard let newest = files.last else {
            throw ConfigurationError(
                "no signing key in \(directory.path): run `pinhole init` to create the first one")
        }
        let signer = JWTKeyCollection()
        guard let raw = Base64URL.decode(newest.d) else {
            throw ConfigurationError("signing key \(newest.kid) is damaged")
        }
        let privateKey = try ES256PrivateKey(backing: P256.Signing.PrivateKey(rawRepresentation: raw))
        await signer.add(ecdsa: privateKey, kid: JWKIdentifier(string: newest.kid))
        self.files = files
        self.signer = signer
    }

    /// The id of the key that signs.
    var signingKeyID: String { files.last!.kid }

    /// Signs claims with the newest key.
    func sign(_ claims: AccessClaims) async throws -> String {
        try await signer.sign(claims, kid: JWKIdentifier(string: signingKeyID))
    }

    /// The public keys, newest first, for the JWKS endpoint and auth's own verifier: the
    /// signing key and each older key whose successor is younger than the retention.
    func fetchKeys() async throws -> JWKSDocument {
        let now = clock.now()
        let published = files.indices.filter { index in
            index == files.count - 1 || now.timeIntervalSince(files[index + 1].createdAt) < retention
        }
        return JWKSDocument(
            keys: published.reversed().map { PublicJWK(x: files[$0].x, y: files[$0].y, kid: files[$0].kid) })
    }
}
