import Contracts
import Crypto
import Foundation
import ServiceHTTP
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Apple App Attest, checked as Apple's "Validating apps that connect to your server" says:
/// an attestation registers a device's key once, then each assertion made with that key proves
/// a request came from a genuine instance of one of ``appIDs`` on an Apple device.
///
/// What it proves and what it does not is in docs/SECURITY.md. The client data of both is the
/// UTF-8 bytes of a one-time challenge auth issued (`clientDataHash` = SHA-256 of them).
struct AppAttest: Sendable {
    enum Environment: String, Sendable {
        case production
        case development

        /// The AAGUID Apple puts in a key's authenticator data for this environment.
        var aaguid: Data {
            switch self {
            case .production: Data("appattest".utf8) + Data(repeating: 0, count: 7)
            case .development: Data("appattestdevelop".utf8)
            }
        }
    }

    /// `TEAMID.bundle.id` of every app accepted.
    let appIDs: Set<String>
    let environment: Environment
    /// The App Attest root (Apple's, or a test authority's).
    let roots: [Certificate]

    /// The certificate extension that carries the attestation's nonce.
    static let nonceExtension: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 8, 2]

    /// A key an attestation registered.
    struct AttestedKey: Sendable, Equatable {
        /// SHA-256 of the public key, as the device names it (base64).
        var keyID: String
        /// The key, as an uncompressed point (X9.63).
        var publicKey: Data
        var appID: String
        /// Apple's receipt, for fraud-risk checks later.
        var receipt: Data
    }

    /// An assertion's app and counter, once its signature verified.
    struct Assertion: Sendable, Equatable {
        var appID: String
        var counter: UInt32
    }

    /// Verifies `object` (the attestation object, CBOR) for `keyID` over `challenge`.
    func verifyAttestation(_ object: Data, keyID: String, challenge: Data, at now: Date) async throws -> AttestedKey {
        func invalid(_ reason: String) -> ServiceError {
            ServiceError(.attestationInvalid, "The attestation does not verify: \(reason).")
        }
        guard let key = Data(base64Encoded: keyID), key.count == 32 else {
            throw ServiceError.validation("`keyId` must be the base64 key identifier App Attest gave (32 bytes).")
        }
        guard let decoded = try? CBOR.decode(object), decoded["fmt"]?.text == "apple-appattest",
            let statement = decoded["attStmt"], let chain = statement["x5c"]?.array?.compactMap(\.bytes),
            chain.count >= 2, let authData = decoded["authData"]?.bytes.map(AuthenticatorData.init),
            let authenticator = authData
        else { throw invalid("it is not an apple-appattest object") }

        // 1. The certificates lead to the App Attest root.
        let certificates: [Certificate]
        do {
            certificates = try chain.map { try Certificate(derEncoded: Array($0)) }
        } catch { throw invalid("a certificate cannot be read") }
        let leaf = certificates[0]
        var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
            RFC5280Policy(fixedExpiryValidationTime: now)
        }
        let result = await verifier.validate(
            leaf: leaf, intermediates: CertificateStore(Array(certificates.dropFirst())))
        guard case .validCertificate = result else {
            throw invalid("its certificates do not lead to the App Attest root")
        }

        // 2–4. The nonce, SHA-256(authData ‖ SHA-256(challenge)), is the one the leaf certifies.
        let nonce = Data(SHA256.hash(data: authenticator.raw + Data(SHA256.hash(data: challenge))))
        guard let certified = try? Self.certifiedNonce(of: leaf), certified == nonce else {
            throw invalid("its nonce is not this challenge's")
        }
        // 5. The certified key is the key named.
        guard let publicKey = P256.Signing.PublicKey(leaf.publicKey),
            Data(SHA256.hash(data: publicKey.x963Representation)) == key
        else { throw invalid("its key is not the key id given") }
        // 6. The app, 7. a new key, 8. the environment, 9. the credential.
        guard let appID = app(of: authenticator) else {
            throw ServiceError(.attestationAppMismatch, "The attestation is for an app this server does not accept.")
        }
        guard authenticator.counter == 0 else { throw invalid("its counter is not zero") }
        guard authenticator.aaguid == environment.aaguid else {
            throw invalid("it is not from the \(environment.rawValue) App Attest environment")
        }
        guard authenticator.credentialID == key else { throw invalid("its credential is not the key id given") }
        return AttestedKey(
            keyID: key.base64EncodedString(), publicKey: publicKey.x963Representation, appID: appID,
            receipt: statement["receipt"]?.bytes ?? Data())
    }

    /// Verifies `object` (an assertion, CBOR) made with `publicKey` over `clientData`, for an
    /// accepted app; the caller compares the counter with the last one it accepted.
    func verifyAssertion(_ object: Data, publicKey: Data, clientData: Data) throws -> Assertion {
        func invalid(_ reason: String) -> ServiceError {
            ServiceError(.assertionInvalid, "The assertion does not verify: \(reason).")
        }
        guard let decoded = try? CBOR.decode(object), let signature = decoded["signature"]?.bytes,
            let rawAuthenticator = decoded["authenticatorData"]?.bytes,
            let authenticator = AuthenticatorData(rawAuthenticator)
        else { throw invalid("it is not an assertion object") }
        let nonce = Data(SHA256.hash(data: authenticator.raw + Data(SHA256.hash(data: clientData))))
        guard let key = try? P256.Signing.PublicKey(x963Representation: publicKey),
            let ecdsa = try? P256.Signing.ECDSASignature(derRepresentation: signature),
            key.isValidSignature(ecdsa, for: nonce)
        else { throw invalid("its signature is not the registered key's over this challenge") }
        guard let appID = app(of: authenticator) else {
            throw ServiceError(.attestationAppMismatch, "The assertion is for an app this server does not accept.")
        }
        return Assertion(appID: appID, counter: authenticator.counter)
    }

    /// The accepted app whose id hashes (SHA-256) to the authenticator data's RP id hash.
    private func app(of authenticator: AuthenticatorData) -> String? {
        appIDs.first { Data(SHA256.hash(data: Data($0.utf8))) == authenticator.rpIDHash }
    }

    /// The nonce in the leaf's App Attest extension: `SEQUENCE { [1] EXPLICIT OCTET STRING }`.
    static func certifiedNonce(of certificate: Certificate) throws -> Data? {
        guard let found = certificate.extensions.first(where: { $0.oid == nonceExtension }) else { return nil }
        let node = try DER.parse(Array(found.value))
        return try DER.sequence(node, identifier: .sequence) { nodes in
            try DER.explicitlyTagged(&nodes, tagNumber: 1, tagClass: .contextSpecific) { inner in
                Data(try ASN1OctetString(derEncoded: inner).bytes)
            }
        }
    }

    /// WebAuthn authenticator data as App Attest fills it: RP id hash, flags, counter, and (in
    /// an attestation) the AAGUID and credential id.
    struct AuthenticatorData {
        let raw: Data
        let rpIDHash: Data
        let counter: UInt32
        let aaguid: Data?
        let credentialID: Data?

        init?(_ raw: Data) {
            let bytes = [UInt8](raw)
            guard bytes.count >= 37 else { return nil }
            self.raw = raw
            rpIDHash = Data(bytes[0..<32])
            counter = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
            // Attested credential data follows when flag AT (0x40) is set.
            if bytes[32] & 0x40 != 0, bytes.count >= 55 {
                aaguid = Data(bytes[37..<53])
                let length = Int(bytes[53]) << 8 | Int(bytes[54])
                guard bytes.count >= 55 + length else { return nil }
                credentialID = Data(bytes[55..<(55 + length)])
            } else {
                aaguid = nil
                credentialID = nil
            }
        }
    }
}
