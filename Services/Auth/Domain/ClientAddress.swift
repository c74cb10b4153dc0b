import Contracts
import Hummingbird
import NIOCore
import ServiceHTTP

/// The address of the client a request is for.
public enum ClientAddress {
    /// The gateway's `x-pinhole-client-ip` when the gateway (by its certificate) made the call,
    /// otherwise the address of the connection itself. A header from anyone else is ignored.
    public static func of(_ request: Request, context: some ServiceRequestContextProtocol) async throws -> String? {
        if let forwarded = request.headers[.pinholeClientIP],
            try await PeerIdentity.name(of: context.channel) == .gateway
        {
            return String(forwarded.prefix(64))
        }
        return context.channel.remoteAddress?.ipAddress
    }
}
