import Contracts
import Crypto
import Foundation
import SwiftASN1
import X509

/// The local certificate authority that lets Pinhole's executables trust each other.
///
/// On first use it creates a P-256 authority under `<data>/pki` and one certificate per
/// executable, named after it (the subject common name is the executable's name, which
/// internal routes use to know who is calling). Every file is written with mode 0600 in a
/// 0700 directory. Certificates close to expiry are reissued; the authority is kept.
public struct LocalAuthority: Sendable {
    /// Where the files live.
    public let directory: URL
    private let clock: any WallClock

    /// Leaf certificates live a year and are reissued when less than 30 days remain.
    static let leafLifetime: TimeInterval = 365 * 86_400
    static let renewalWindow: TimeInterval = 30 * 86_400
    static let authorityLifetime: TimeInterval = 10 * 365 * 86_400

    /// The authority under `<dataDirectory>/pki`.
    public init(dataDirectory: URL, clock: any WallClock = SystemClock()) {
        self.directory = dataDirectory.appendingPathComponent("pki", isDirectory: true)
        self.clock = clock
    }

    var authorityCertificateFile: URL { directory.appendingPathComponent("ca.crt") }
    var authorityKeyFile: URL { directory.appendingPathComponent("ca.key") }

    /// Creates the authority if missing, then a certificate for each name that lacks a valid
    /// one. `extraHostNames` are added as subject alternative names (for Compose or Kubernetes
    /// service names). Returns the names whose certificate was (re)issued.
    @discardableResult
    public func prepare(
        for names: [ServiceName] = ServiceName.allCases, extraHostNames: [String] = []
    ) throws -> [ServiceName] {
        try FileSystem.makeOwnerOnlyDirectory(directory)
        let (authority, authorityKey) = try loadOrCreateAuthority()
        var issued: [ServiceName] = []
        for name in names {
            let paths = PKIPaths(dataDirectory: directory.deletingLastPathComponent(), name: name)
            if try needsIssuing(paths.certificate, authority: authority) {
                try issue(
                    commonName: name.rawValue, hostNames: [name.rawValue] + extraHostNames,
                    certificateFile: paths.certificate, keyFile: paths.key,
                    authority: authority, authorityKey: authorityKey)
                issued.append(name)
            }
        }
        return issued
    }

    /// Issues a server certificate for the public listener (for local TLS and benchmarks),
    /// with the given host names, into `certificateFile`/`keyFile`.
    public func issueServerCertificate(hostNames: [String], certificateFile: URL, keyFile: URL) throws {
        try FileSystem.makeOwnerOnlyDirectory(directory)
        let (authority, authorityKey) = try loadOrCreateAuthority()
        try issue(
            commonName: hostNames.first ?? "localhost", hostNames: hostNames,
            certificateFile: certificateFile, keyFile: keyFile, authority: authority, authorityKey: authorityKey)
    }

    // MARK: - Authority

    private func loadOrCreateAuthority() throws -> (Certificate, Certificate.PrivateKey) {
        let manager = FileManager.default
        if manager.fileExists(atPath: authorityCertificateFile.path), manager.fileExists(atPath: authorityKeyFile.path)
        {
            let certificate = try Certificate(pemEncoded: String(contentsOf: authorityCertificateFile, encoding: .utf8))
            let key = try Certificate.PrivateKey(pemEncoded: String(contentsOf: authorityKeyFile, encoding: .utf8))
            return (certificate, key)
        }
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let name = try DistinguishedName {
            OrganizationName("Pinhole")
            CommonName("Pinhole local authority")
        }
        let now = clock.now()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: key.publicKey,
            notValidBefore: now.addingTimeInterval(-300),
            notValidAfter: now.addingTimeInterval(Self.authorityLifetime),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: key
        )
        try FileSystem.writeOwnerOnly(Data(key.serializeAsPEM().pemString.utf8), to: authorityKeyFile)
        try FileSystem.writeOwnerOnly(Data(certificate.serializeAsPEM().pemString.utf8), to: authorityCertificateFile)
        return (certificate, key)
    }

    private func needsIssuing(_ file: URL, authority: Certificate) throws -> Bool {
        guard let text = try? String(contentsOf: file, encoding: .utf8),
            let certificate = try? Certificate(pemEncoded: text)
        else { return true }
        let expiresSoon = certificate.notValidAfter.timeIntervalSince(clock.now()) < Self.renewalWindow
        return expiresSoon || certificate.issuer != authority.subject
    }

    // MARK: - Leaves

    private func issue(
        commonName: String, hostNames: [String], certificateFile: URL, keyFile: URL,
        authority: Certificate, authorityKey: Certificate.PrivateKey
    ) throws {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName {
            OrganizationName("Pinhole")
            CommonName(commonName)
        }
        var names: [GeneralName] = Array(Set(hostNames + ["localhost"])).sorted().map { .dnsName($0) }
        names.append(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])))
        names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1]))))
        let now = clock.now()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-300),
            notValidAfter: now.addingTimeInterval(Self.leafLifetime),
            issuer: authority.subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth, .clientAuth])
                SubjectAlternativeNames(names)
            },
            issuerPrivateKey: authorityKey
        )
        try FileSystem.writeOwnerOnly(Data(key.pemRepresentation.utf8), to: keyFile)
        try FileSystem.writeOwnerOnly(Data(certificate.serializeAsPEM().pemString.utf8), to: certificateFile)
    }
}

extension Certificate {
    /// The subject's common name, which for Pinhole's certificates is the executable's name.
    public var subjectCommonName: String? {
        for relativeName in subject {
            for attribute in relativeName where attribute.type == .RDNAttributeType.commonName {
                return String(describing: attribute.value)
            }
        }
        return nil
    }
}
