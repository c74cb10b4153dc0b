import Contracts
import NIOCore
import NIOSSL
import SwiftASN1
import Synchronization
import X509

/// Who is on the other end of an internal connection, from the certificate the TLS handshake
/// already verified against the local authority.
public enum PeerIdentity {
    /// Names already read, by certificate (its DER bytes): a service's peers present a handful
    /// of certificates, and parsing one on every internal request was 1–2 % of alerts' CPU
    /// while it took a thousand events a second.
    private static let known = Mutex<[[UInt8]: ServiceName?]>([:])

    /// The executable named in the peer certificate's common name, or nil when the connection
    /// has no client certificate (or is not TLS at all).
    public static func name(of channel: any Channel) async throws -> ServiceName? {
        // Under HTTP/2 the request runs on a stream channel; TLS lives on its parent.
        let connection = channel.parent ?? channel
        guard let certificate = try? await connection.nioSSL_peerCertificate().get(),
            let der = try? certificate.toDERBytes()
        else { return nil }
        if let name = known.withLock({ $0[der] }) { return name }
        let name = (try? Certificate(derEncoded: der))?.subjectCommonName.flatMap(ServiceName.init(rawValue:))
        known.withLock { known in
            if known.count >= 64 { known.removeAll() }
            known[der] = name
        }
        return name
    }
}

extension PeerIdentity {
    /// The calling executable of an internal route, which must be one of `allowed`; anyone
    /// else (no certificate, or another executable's) gets 403 `PEER_NOT_ALLOWED`.
    @discardableResult
    public static func require(
        _ context: some ServiceRequestContextProtocol, oneOf allowed: Set<ServiceName>
    ) async throws -> ServiceName {
        guard let peer = try await name(of: context.channel), allowed.contains(peer) else {
            throw ServiceError(.peerNotAllowed, "This internal route is not open to the caller.")
        }
        return peer
    }
}
