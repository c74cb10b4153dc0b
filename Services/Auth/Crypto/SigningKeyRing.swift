import Contracts
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
        let privateKey = try EdDSA.PrivateKey(d: newest.d, curve: .ed25519)
        await signer.add(eddsa: privateKey, kid: JWKIdentifier(string: newest.kid))
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
        JWKSDocument(keys: files.reversed().map { PublicJWK(x: $0.x, kid: $0.kid) })
    }
}
