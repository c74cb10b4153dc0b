import Contracts
import Foundation
import NIOSSL

/// This executable's certificate, key and the authority it trusts, loaded from PEM files,
/// turned into the TLS configurations of the internal listener and the internal client.
public struct TLSMaterial: Sendable {
    /// The local authority.
    public let authority: [NIOSSLCertificate]
    /// This executable's certificate chain.
    public let certificateChain: [NIOSSLCertificate]
    /// This executable's private key.
    public let privateKey: NIOSSLPrivateKey

    /// Loads the files; fails with a message that says how to create them.
    public init(paths: PKIPaths) throws {
        for file in [paths.authority, paths.certificate, paths.key]
        where !FileManager.default.fileExists(atPath: file.path) {
            throw ConfigurationError(
                "missing \(file.path): run `pinhole init` (or `pinhole up`) to create the local authority and certificates"
            )
        }
        self.authority = try NIOSSLCertificate.fromPEMFile(paths.authority.path)
        self.certificateChain = try NIOSSLCertificate.fromPEMFile(paths.certificate.path)
        self.privateKey = try NIOSSLPrivateKey(file: paths.key.path, format: .pem)
    }

    /// The internal listener: TLS 1.3 only, and a client certificate from the local authority
    /// is required (a peer without one fails the handshake).
    public func serverConfiguration() -> TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificateChain.map { .certificate($0) },
            privateKey: .privateKey(privateKey)
        )
        configuration.minimumTLSVersion = .tlsv13
        configuration.trustRoots = .certificates(authority)
        configuration.certificateVerification = .noHostnameVerification
        return configuration
    }

    /// The internal client: presents this executable's certificate and trusts only the local
    /// authority, with full host name verification.
    public func clientConfiguration() -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv13
        configuration.trustRoots = .certificates(authority)
        configuration.certificateChain = certificateChain.map { .certificate($0) }
        configuration.privateKey = .privateKey(privateKey)
        configuration.certificateVerification = .fullVerification
        return configuration
    }
}
