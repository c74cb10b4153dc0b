import NIOCore

/// The public listener's connection limits (``GatewaySettings``' `limits.*` keys), shared by
/// every connection it accepts.
struct PublicLimits: Sendable {
    /// Accept to protocol chosen, per-address connections, and the shutdown grace.
    let connection: ConnectionGuard.Limits
    /// HTTP/1.1: time for the next request head; HTTP/2: time with no open stream.
    let idleTimeout: TimeAmount
    /// The parsers' hard cap on a request head, well above `limits.headerBytes` so that the
    /// router answers most oversized heads with a proper 431; a head beyond it is refused by
    /// the parser (HTTP/1.1: 431 from ``HTTP1Guard``; HTTP/2: the stream or connection ends).
    let headerCap: Int
    let counter: ConnectionCounter
    /// How long an address whose connection flooded HTTP/2 (rapid reset, CONTINUATION or
    /// control frames) has its new connections refused.
    let floodPenalty: Duration
    /// How often a WebSocket is pinged (a client that stops answering is closed).
    let webSocketPing: Duration
    var grace: TimeAmount { connection.grace }

    init(_ settings: GatewaySettings) {
        connection = ConnectionGuard.Limits(
            perAddress: settings.connectionsPerAddress, handshake: .seconds(settings.handshakeTimeout),
            grace: .seconds(5), trusted: settings.trustedProxies)
        idleTimeout = .seconds(settings.idleTimeout)
        headerCap = max(4 * settings.headerLimit, 1 << 16)
        counter = ConnectionCounter()
        floodPenalty = .seconds(settings.floodPenalty)
        webSocketPing = .seconds(settings.webSocketPing)
    }
}
