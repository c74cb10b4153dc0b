import Contracts
import Foundation
import Hummingbird
import NIOCore
import ServiceHTTP

/// The gateway's request context: the kit's (request id, user) and the route-table entry
/// the pipeline found for the request.
struct GatewayRequestContext: ServiceRequestContextProtocol {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel
    var requestID: String = ""
    var user: AuthenticatedUser?
    /// Set by ``RouteMatchMiddleware``.
    var route: GatewayRoute?

    /// The client's address: the connection's, or behind a trusted proxy the one it forwarded
    /// (``ClientAddressMiddleware``).
    var clientAddress: String

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
        self.clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// The connection the request came on: an HTTP/2 stream's channel is a child of its
    /// connection's, which is a child of the listener's; an HTTP/1.1 request's channel is the
    /// connection's own.
    var connection: any Channel {
        if let parent = channel.parent, parent.parent != nil { return parent }
        return channel
    }

    /// Gives an HTTP/2 request's stream its full flow-control window: its body is about to be
    /// read (until then the client may send only the small window a stream begins with).
    func widenStreamWindow() {
        guard channel !== connection else { return }
        channel.triggerUserOutboundEvent(WidenStreamWindow(), promise: nil)
    }

    /// The route found for this request; only routes reached through the pipeline ask.
    func requireRoute() throws -> GatewayRoute {
        guard let route else { throw ServiceError(.notFound, "No route.") }
        return route
    }
}
