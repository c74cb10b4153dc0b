import Crypto
import Foundation
import ServiceHTTP
import SwiftASN1
import X509

/// A stand-in for Apple's App Attest made by the tests themselves: a root and intermediate
/// authority, and one device key, with which it makes attestation and assertion objects the way
/// an iPhone's Secure Enclave does (no network). Auth trusts ``rootPEM`` through
/// `auth.appAttest.rootCertificateFile`.
public struct AppAttestFixture: Sendable {
    public let appID: String
    let rootKey: P256.Signing.PrivateKey
    let root: Certificate
    let intermediateKey: P256.Signing.PrivateKey
    let intermediate: Certificate
    let deviceKey: P256.Signing.PrivateKey

    public init(appID: String = "TEAM123456.org.pinhole.agora", now: Date = Date()) throws {
        self.appID = appID
        (rootKey, root) = try Self.authority(named: "Test App Attest Root", signedBy: nil, now: now)
        (intermediateKey, intermediate) = try Self.authority(
            named: "Test App Attest CA 1", signedBy: (rootKey, root), now: now)
        deviceKey = P256.Signing.PrivateKey()
    }

    private init(_ other: AppAttestFixture) {
        (appID, rootKey, root) = (other.appID, other.rootKey, other.root)
        (intermediateKey, intermediate) = (other.intermediateKey, other.intermediate)
        deviceKey = P256.Signing.PrivateKey()
    }

    /// Another device of the same app, under the same authorities.
    public func anotherDevice() -> AppAttestFixture { AppAttestFixture(self) }

    /// The root's certificate, as the file auth is configured with.
    public var rootPEM: String {
        get throws { try root.serializeAsPEM().pemString }
    }

    /// The key id the device reports: SHA-256 of its public key, base64.
    public var keyID: String { Data(SHA256.hash(data: deviceKey.publicKey.x963Representation)).base64EncodedString() }

    /// An attestation object for ``keyID`` over `challenge`. The rest make it wrong the ways a
    /// forger or a misconfigured app would: another app, a nonce not over this challenge, or a
    /// leaf another authority signed.
    public func attestation(
        challenge: String, appID: String? = nil, environment: String = "production", forgedBy forger: Bool = false,
        now: Date = Date()
    ) throws -> String {
        let key = Data(SHA256.hash(data: deviceKey.publicKey.x963Representation))
        let aaguid =
            environment == "production" ? Data("appattest".utf8) + Data(count: 7) : Data("appattestdevelop".utf8)
        let authData =
            Data(SHA256.hash(data: Data((appID ?? self.appID).utf8))) + Data([0x41]) + Data(count: 4) + aaguid
            + Data([0, UInt8(key.count)]) + key + deviceKey.publicKey.x963Representation
        let nonce = Data(SHA256.hash(data: authData + Data(SHA256.hash(data: Data(challenge.utf8)))))
        let issuer =
            forger
            ? try Self.authority(named: "Test App Attest CA 1", signedBy: nil, now: now)
            : (intermediateKey, intermediate)
        let leaf = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(deviceKey.publicKey),
            notValidBefore: now.addingTimeInterval(-86_400), notValidAfter: now.addingTimeInterval(365 * 86_400),
            issuer: issuer.1.subject,
            subject: try DistinguishedName { CommonName(key.map { String(format: "%02x", $0) }.joined()) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Certificate.Extension(
                    oid: [1, 2, 840, 113_635, 100, 8, 2], critical: false,
                    value: ArraySlice(try Self.nonceExtension(nonce)))
            },
            issuerPrivateKey: Certificate.PrivateKey(issuer.0))
        let object = CBORWriter.map([
            "fmt": .text("apple-appattest"),
            "attStmt": .map([
                "x5c": .array([.bytes(Data(try Self.der(leaf))), .bytes(Data(try Self.der(intermediate)))]),
                "receipt": .bytes(Data("test receipt".utf8)),
            ]),
            "authData": .bytes(authData),
        ])
        return object.encoded().base64EncodedString()
    }

    /// An assertion over `challenge` with the device's counter at `counter`.
    public func assertion(challenge: String, counter: UInt32, appID: String? = nil) throws -> String {
        let authenticatorData =
            Data(SHA256.hash(data: Data((appID ?? self.appID).utf8))) + Data([0x01])
            + Data([24, 16, 8, 0].map { UInt8(truncatingIfNeeded: counter >> $0) })
        let nonce = Data(SHA256.hash(data: authenticatorData + Data(SHA256.hash(data: Data(challenge.utf8)))))
        let signature = try deviceKey.signature(for: nonce).derRepresentation
        return CBORWriter.map(["signature": .bytes(signature), "authenticatorData": .bytes(authenticatorData)])
            .encoded()
            .base64EncodedString()
    }

    static func authority(
        named name: String, signedBy issuer: (P256.Signing.PrivateKey, Certificate)?, now: Date
    ) throws -> (P256.Signing.PrivateKey, Certificate) {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName {
            OrganizationName("Pinhole tests")
            CommonName(name)
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-86_400), notValidAfter: now.addingTimeInterval(2 * 365 * 86_400),
            issuer: issuer?.1.subject ?? subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(issuer?.0 ?? key))
        return (key, certificate)
    }

    /// `SEQUENCE { [1] EXPLICIT OCTET STRING nonce }`, as Apple's leaf carries it.
    static func nonceExtension(_ nonce: Data) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { sequence in
            try sequence.serialize(explicitlyTaggedWithTagNumber: 1, tagClass: .contextSpecific) { tagged in
                try tagged.serialize(ASN1OctetString(contentBytes: ArraySlice(nonce)))
            }
        }
        return serializer.serializedBytes
    }

    static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
