import Configuration
import Foundation
import ServiceHTTP

/// The gateway's own settings.
///
/// Keys:
/// - `public.tls.certificate`, `public.tls.key` (default unset): PEM files of the public
///   certificate. When set, the listener speaks TLS with ALPN (HTTP/2, HTTP/1.1 fallback);
///   when unset, plaintext HTTP/1.1 and prior-knowledge HTTP/2 on the same port.
/// - `public.trustedProxies` (default unset): the load balancers or reverse proxies in front
///   of the gateway, as addresses and CIDR ranges (`10.0.0.0/8, 2001:db8::/32`). Requests
///   from them are limited by the client address they forward in `X-Forwarded-For`, and their
///   own connections are not limited per address (``TrustedProxies``).
/// - `ratelimit.enabled` (default true).
/// - `ratelimit.<class>.limit`, `ratelimit.<class>.windowSeconds` for classes `auth`
///   (20 per 60 s, per client address), `read` (600 per 60 s), `write` (120 per 60 s),
///   `upload` (20 per 3600 s), `search` (60 per 60 s), `mail` (10 per 3600 s: the routes
///   that send mail); per user when signed in, per client address otherwise.
/// - `limits.jsonBytes` (default 1048576), `limits.uploadBytes` (default 110100480): the
///   largest request body per route kind.
/// - `limits.headerBytes` (default 12288): the largest request head (HPACK-counted: name +
///   value + 32 per field); larger is 431 `HEADERS_TOO_LARGE`. It leaves room for the headers
///   the gateway adds under the services' own 16 KiB limit.
/// - `limits.idleTimeoutSeconds` (default 60): an HTTP/1.1 connection whose next request head
///   has not arrived within this (idle between requests, or trickling its headers) is
///   closed, and so is an HTTP/2 connection with no open stream for this long.
/// - `limits.handshakeTimeoutSeconds` (default 10): time from accept to a chosen protocol
///   (TLS handshake and ALPN, or the first bytes in plaintext).
/// - `limits.connectionsPerAddress` (default 256): open connections per client address; more
///   are closed on arrival.
/// - `limits.floodPenaltySeconds` (default 10): after one of its connections floods HTTP/2
///   (rapid reset, CONTINUATION or control frames), an address's new connections are closed
///   on arrival for this long.
/// - `limits.concurrentRequestsPerConnection` (default 8): forwarded requests of one
///   connection at work at once (until their answer's head; a body sent to an upload route
///   takes none); an HTTP/2 connection's other streams wait their turn, so one client's
///   hundred streams cannot queue everyone else's requests behind them.
/// - `limits.liveStreamsPerUser` (default 8): WebSockets of `/v1/notifications/stream` one
///   user may hold open through this gateway; the next is closed with 4429.
/// - `limits.webSocketPingSeconds` (default 30): how often a WebSocket is pinged; one whose
///   client has not answered the previous ping by then is closed (its idle timeout).
/// - `upstream.timeoutSeconds` (default 30), `upstream.uploadTimeoutSeconds` (default 600):
///   how long a service may take to begin its answer.
/// - `upstream.relay` (default true): HTTP/2 requests with a JSON body or none are relayed on
///   their connection's event loop (``StreamRelay``); false sends every request through the
///   Hummingbird pipeline (for comparing the two, or ruling the relay out).
/// - `upstream.relayKeptAlive` (default true): the relay carries a request on an idle kept-alive
///   HTTP/1.1 connection to the service when its loop has one (``KeptAliveLanes``), and on a
///   stream of the loop's HTTP/2 connection otherwise.
/// - `upstream.relayFrames` (default true): a GET whose HEADERS end its stream is relayed from
///   the client's HTTP/2 connection frame by frame (``FrameRelay``), without a stream channel;
///   false leaves every request to its stream's ``StreamRelay``.
/// - `metrics.token` (secret, default unset): bearer token for `/metrics`; without it only
///   loopback clients that are not a trusted proxy may read metrics.
/// - `cors.allowOrigin` (default unset): an origin allowed to call the API from a browser.
/// - `links.*`: the apps' universal and app links (``AppLinks``).
struct GatewaySettings: Sendable {
    let publicCertificate: URL?
    let publicKey: URL?
    let rateLimitEnabled: Bool
    let policies: [RateClass: RatePolicy]
    let jsonBodyLimit: Int
    let uploadBodyLimit: Int
    let upstreamTimeout: Int64
    let uploadTimeout: Int64
    let relay: Bool
    let relayKeptAlive: Bool
    let relayFrames: Bool
    let metricsToken: String?
    let corsOrigin: String?
    let headerLimit: Int
    let idleTimeout: Int64
    let handshakeTimeout: Int64
    let connectionsPerAddress: Int
    let floodPenalty: Int64
    let concurrentRequestsPerConnection: Int
    let liveStreamsPerUser: Int
    let webSocketPing: Int64
    let appLinks: AppLinks
    let trustedProxies: TrustedProxies

    /// How much of a body an early answer (401, 413, 429, an upstream that answered first)
    /// waits for, so a client still sending gets the answer instead of a reset.
    var drainLimit: Int { max(jsonBodyLimit, 4 << 20) }

    init(reader: ConfigReader) throws {
        let certificate = reader.string(forKey: "public.tls.certificate")
        let key = reader.string(forKey: "public.tls.key")
        guard (certificate == nil) == (key == nil) else {
            throw ConfigurationError("set both public.tls.certificate and public.tls.key, or neither")
        }
        self.publicCertificate = certificate.map { URL(fileURLWithPath: $0) }
        self.publicKey = key.map { URL(fileURLWithPath: $0) }
        self.rateLimitEnabled = try reader.boolean("ratelimit.enabled", default: true)
        var policies: [RateClass: RatePolicy] = [:]
        for rateClass in RateClass.allCases {
            let limit = try reader.integer(
                "ratelimit.\(rateClass.rawValue).limit", default: rateClass.defaultPolicy.limit, in: 1...10_000_000)
            let window = try reader.integer(
                "ratelimit.\(rateClass.rawValue).windowSeconds", default: Int(rateClass.defaultPolicy.window),
                in: 1...86_400)
            policies[rateClass] = RatePolicy(name: rateClass.rawValue, limit: limit, window: TimeInterval(window))
        }
        self.policies = policies
        self.jsonBodyLimit = try reader.integer("limits.jsonBytes", default: 1 << 20, in: 1024...(64 << 20))
        self.uploadBodyLimit = try reader.integer("limits.uploadBytes", default: 105 * 1_048_576, in: 1024...(1 << 40))
        self.upstreamTimeout = Int64(try reader.integer("upstream.timeoutSeconds", default: 30, in: 1...3600))
        self.uploadTimeout = Int64(try reader.integer("upstream.uploadTimeoutSeconds", default: 600, in: 1...86_400))
        self.relay = try reader.boolean("upstream.relay", default: true)
        self.relayKeptAlive = try reader.boolean("upstream.relayKeptAlive", default: true)
        self.relayFrames = try reader.boolean("upstream.relayFrames", default: true)
        self.metricsToken = reader.string(forKey: "metrics.token", isSecret: true)
        self.corsOrigin = reader.string(forKey: "cors.allowOrigin")
        self.headerLimit = try reader.integer("limits.headerBytes", default: 12288, in: 1024...65536)
        self.idleTimeout = Int64(try reader.integer("limits.idleTimeoutSeconds", default: 60, in: 1...3600))
        self.handshakeTimeout = Int64(try reader.integer("limits.handshakeTimeoutSeconds", default: 10, in: 1...300))
        self.connectionsPerAddress = try reader.integer(
            "limits.connectionsPerAddress", default: 256, in: 1...1_000_000)
        self.floodPenalty = Int64(try reader.integer("limits.floodPenaltySeconds", default: 10, in: 0...3600))
        self.concurrentRequestsPerConnection = try reader.integer(
            "limits.concurrentRequestsPerConnection", default: 8, in: 1...1000)
        self.liveStreamsPerUser = try reader.integer("limits.liveStreamsPerUser", default: 8, in: 1...1000)
        self.webSocketPing = Int64(try reader.integer("limits.webSocketPingSeconds", default: 30, in: 1...3600))
        self.appLinks = try AppLinks(reader: reader)
        self.trustedProxies = try TrustedProxies(parsing: reader.string(forKey: "public.trustedProxies") ?? "")
    }
}
