import Contracts
import Foundation
import HTTPTypes
import NIOCore
import ServiceHTTP

/// The forwarding pipeline's checks (``ProxyController``) as synchronous steps on a
/// connection's event loop, for ``StreamRelay``: the route, the head's size, the declared body
/// size and the token (from the verifier's cache) in ``admit(_:on:)``; then, once the request
/// has its connection's turn, the rate limit in ``plan(_:on:)``.
///
/// A request that any step would refuse, or could not decide without waiting (a token not yet
/// verified, no upstream connection on this loop yet, an upload, CORS, `Expect`), is not
/// relayed: it goes on to the Hummingbird pipeline, which runs the same checks against the same
/// state (one token cache, one rate limiter, one set of turns) and gives every refusal its
/// proper answer. A step that passed here has changed nothing the pipeline would see twice:
/// the rate limit, the one step that counts, comes last.
struct RelayRules: Sendable {
    let verifier: TokenVerifier
    let limiter: RateLimiter
    let shares: ConnectionShares
    let pool: UpstreamPool
    let settings: GatewaySettings
    let clock: any WallClock
    let entropy: any Entropy
    let log: RelayLog

    /// The methods relayed: those with a JSON body or none. HEAD, OPTIONS (CORS) and TRACE
    /// take the pipeline.
    private static let methods: Set<HTTPRequest.Method> = [.get, .post, .put, .patch, .delete]

    /// Whether `head`, a request on the client's HTTP/2 `connection`, may be relayed, as far as
    /// can be told before its connection's turn (``ConnectionShares``, which ``StreamRelay`` and
    /// ``FrameRelay`` take next): route, head size, declared body, token. Nil when the pipeline
    /// answers it.
    func admit(_ head: HTTPRequest, connection: any Channel) -> RelayAdmission? {
        guard !Telemetry.isEnabled, Self.methods.contains(head.method), let target = head.path else { return nil }
        let fields = head.headerFields
        guard fields[.expect] == nil, settings.corsOrigin == nil || fields[.origin] == nil,
            HeaderLimitMiddleware<GatewayRequestContext>.size(of: head) <= settings.headerLimit
        else { return nil }
        guard let path = Self.path(of: target), RouteTable.isCanonical(path), !RouteTable.gatewayPaths.contains(path),
            let route = RouteTable.route(path: path, method: head.method), route.body == .json
        else { return nil }
        // A GET's body is never forwarded; the pipeline reads and drops one (or refuses it).
        let length = fields[.contentLength]
        if head.method == .get {
            guard length == nil || length == "0" else { return nil }
        } else if let length {
            // Without a length the body is counted as it comes (``StreamRelay``).
            guard let declared = StrictNumbers.count(length), declared <= settings.jsonBodyLimit else { return nil }
        }
        var user: AuthenticatedUser?
        if route.access == .authenticated {
            guard let token = AuthenticationMiddleware<GatewayRequestContext>.bearerToken(in: fields),
                let found = verifier.verifiedFromCache(token), !found.isGuest || head.method == .get,
                found.suspendedUntil == nil
            else { return nil }
            user = found
        }
        return RelayAdmission(head: head, path: path, route: route, user: user, turn: ObjectIdentifier(connection))
    }

    /// How `admitted`, holding its turn, is relayed: the service's connection on this loop, the
    /// rate limit charged, the ids and the head the service gets. Nil when the pipeline
    /// answers it after all (no connection on this loop yet, or the rate limit refuses).
    /// `channel` is the request's stream, or the client's connection (the same loop and peer).
    func plan(_ admitted: RelayAdmission, on channel: any Channel) -> RelayPlan? {
        let (head, route) = (admitted.head, admitted.route)
        guard let upstream = pool.relayConnection(to: route.service, on: channel.eventLoop) else { return nil }
        let fields = head.headerFields
        let peer = channel.remoteAddress?.ipAddress ?? "unknown"
        let clientAddress =
            settings.trustedProxies.isEmpty
            ? peer : settings.trustedProxies.client(peer: peer, forwardedFor: fields[values: .forwardedFor])
        var rateHeaders = HTTPFields()
        let rateClass = route.rateClass(for: head.method)
        if settings.rateLimitEnabled, let policy = settings.policies[rateClass] {
            let key = rateClass.limiterKey(user: admitted.user, clientAddress: clientAddress)
            let decision = limiter.check(key: key, policy: policy, now: clock.now().timeIntervalSince1970)
            guard decision.allowed else { return nil }
            rateHeaders = decision.headers(for: policy)
        }
        // The rate limit said yes: a kept-alive connection taken now is always used.
        let keptAlive = settings.relayKeptAlive ? pool.keptAlive.take(to: route.service, on: channel.eventLoop) : nil
        let requestID = RequestTracingMiddleware<GatewayRequestContext>.requestID(of: fields, entropy: entropy)
        let span =
            fields[HeaderPolicy.traceparent].flatMap(TraceParent.init(header:))?.child(entropy: entropy)
            ?? TraceParent.root(entropy: entropy)
        var upstreamFields = HeaderPolicy.upstreamFields(
            from: fields, clientAddress: clientAddress, requestID: requestID, span: span)
        if head.method == .get { upstreamFields[HTTPField.Name.contentLength] = nil }
        return RelayPlan(
            upstreamHead: HTTPRequest(
                method: head.method, scheme: "https", authority: pool.authority(of: route.service),
                path: head.path, headerFields: upstreamFields),
            service: route.service, connection: upstream, keptAlive: keptAlive, forwardsBody: head.method != .get,
            requestID: requestID, span: span, rateHeaders: rateHeaders, userID: admitted.user?.userID,
            endpoint: admitted.path.hasPrefix("/.well-known/") ? "/.well-known/**" : "/**", path: admitted.path,
            timeout: .seconds(settings.upstreamTimeout), bodyLimit: settings.jsonBodyLimit)
    }

    /// The path of a request target, without its query; nil for a target the pipeline's URI
    /// parsing might read differently (a fragment).
    static func path(of target: String) -> String? {
        guard !target.utf8.contains(UInt8(ascii: "#")) else { return nil }
        guard let query = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target }
        return String(target[..<query])
    }
}

/// A request ``RelayRules`` found relayable before its turn.
struct RelayAdmission {
    let head: HTTPRequest
    /// The target's path, without the query.
    let path: String
    let route: GatewayRoute
    let user: AuthenticatedUser?
    /// Its connection's turns (``ConnectionShares``).
    let turn: ObjectIdentifier
}

/// One relayed request, as ``RelayRules`` planned it.
struct RelayPlan {
    /// The head the service receives.
    let upstreamHead: HTTPRequest
    let service: ServiceName
    /// The service's HTTP/2 connection on the request's event loop.
    let connection: UpstreamConnection
    /// An idle kept-alive HTTP/1.1 connection to the service on the same loop, taken for this
    /// request (``KeptAliveLanes``); without one, a stream of `connection` carries it.
    let keptAlive: (any Channel)?
    let forwardsBody: Bool
    let requestID: String
    let span: TraceParent
    /// `RateLimit` and `RateLimit-Policy`, for the answer.
    let rateHeaders: HTTPFields
    let userID: String?
    /// The route's pattern, as the pipeline's metrics name it.
    let endpoint: String
    let path: String
    let timeout: TimeAmount
    /// The most body it may send: more is 413 (before an answer began) or dropped.
    let bodyLimit: Int
}

extension RelayPlan {
    /// The client's head for the service's `response`: its fields as the pipeline passes them
    /// down, the `RateLimit` headers, the request id and the trace.
    func answerHead(_ response: HTTPResponse) -> HTTPResponse {
        var head = HTTPResponse(status: response.status)
        head.headerFields = HeaderPolicy.downstreamFields(from: response.headerFields)
        head.headerFields.append(contentsOf: rateHeaders)
        head.headerFields.append(HeaderPolicy.once(.requestID, requestID))
        head.headerFields.append(HeaderPolicy.once(HeaderPolicy.traceparent, span.description))
        return head
    }

    /// `failure` as the pipeline's ``ErrorMiddleware`` answers it: the envelope and its head.
    func refusal(_ failure: ServiceError) -> (head: HTTPResponse, body: ByteBuffer) {
        let body = failure.envelope(requestID: requestID)
        var head = HTTPResponse(status: failure.status, headerFields: failure.headers)
        head.headerFields[.contentType] = "application/json; charset=utf-8"
        head.headerFields[.contentLength] = String(body.readableBytes)
        head.headerFields[.requestID] = requestID
        head.headerFields[HeaderPolicy.traceparent] = span.description
        return (head, body)
    }
}

extension HTTPField.Name {
    static let forwardedFor = HTTPField.Name("x-forwarded-for")!
}
