import Contracts
import Crypto
import Foundation
import JWTKit
import ServiceKit

/// Auth's signing keys, loaded from the keys directory: the newest signs, all are published
/// in the JWKS so that tokens signed by an older key stay valid until they expire.
actor SigningKeyRing: PublicKeySource {
    private let directory: URL
    private var files: [SigningKeyFile] = []
    private var signer = JWTKeyCollection()

    init(directory: URL) async throws {
        self.directory = directory
        try await reload()
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

    /// The public keys, for the JWKS endpoint and auth's own verifier.
    func fetchKeys() async throws -> JWKSDocument {
        JWKSDocument(keys: files.reversed().map { PublicJWK(x: $0.x, y: $0.y, kid: $0.kid) })
    }
}
