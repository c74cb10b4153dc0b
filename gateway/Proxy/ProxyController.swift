import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import ServiceKit

/// Forwards `/v1/...` to the owning service, streaming both bodies.
///
/// In order: the path must be canonical and listed in ``RouteTable`` (404 otherwise); a route
/// that needs a token gets it verified here (401 before anything is forwarded); the rate
/// limit of the route's class is charged to the user, or to the client address when
/// anonymous (429 with `Retry-After`); the body size is checked against `Content-Length` and
/// again while streaming (413). The request then goes to the service over mutual-TLS HTTP/2
/// with the token, minus anything internal the client sent; a service that cannot be reached
/// gives a fast 503 `UPSTREAM_UNAVAILABLE`.
struct ProxyController: Sendable {
    let client: InternalClient
    /// For upload routes: HTTP/1.1 to the service, so a large body is not held back by HTTP/2
    /// flow-control windows on the internal hop (`docs/PERFORMANCE.md`).
    let uploadClient: InternalClient
    let verifier: TokenVerifier
    let limiter: RateLimiter
    let settings: GatewaySettings
    let clock: any WallClock

    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]

    func addRoutes(to router: Router<ServiceRequestContext>) {
        for method in Self.methods {
            router.on("/**", method: method, use: forward)
        }
    }

    @Sendable func forward(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let path = request.uri.path
        guard RouteTable.isCanonical(path) else {
            throw ServiceError(.malformedRequest, "The path is not in canonical form.")
        }
        guard let route = RouteTable.route(path: path, method: request.method) else {
            throw ServiceError(.notFound, "No route for \(request.method) \(path).")
        }
        var context = context
        if route.access == .authenticated {
            guard let token = AuthenticationMiddleware<ServiceRequestContext>.bearerToken(in: request.headers) else {
                throw ServiceError.authenticationRequired
            }
            let user = try await verifier.verify(token)
            if user.isGuest, request.method != .get, request.method != .head {
                throw ServiceError.guestReadOnly
            }
            context.user = user
            context.logger[metadataKey: "user_id"] = .string(user.userID)
        }
        let clientAddress = context.channel.remoteAddress?.ipAddress ?? "unknown"

        let rateClass = route.rateClass(for: request.method)
        var rateHeaders = HTTPFields()
        if settings.rateLimitEnabled, let policy = settings.policies[rateClass] {
            // Guests mint tokens freely, so they are counted by address, not by token.
            let key =
                if rateClass != .auth, let user = context.user, !user.isGuest {
                    "user:\(user.userID)"
                } else {
                    "ip:\(clientAddress)"
                }
            let decision = limiter.check(key: key, policy: policy, now: clock.now().timeIntervalSince1970)
            rateHeaders[.rateLimitPolicy] = policy.policyHeader
            rateHeaders[.rateLimit] = decision.header(for: policy)
            guard decision.allowed else {
                rateHeaders[.retryAfter] = String(decision.retryAfter)
                throw ServiceError(
                    .rateLimitExceeded, "Too many requests; retry in \(decision.retryAfter) s.", headers: rateHeaders)
            }
        }

        let limit = route.body == .upload ? settings.uploadBodyLimit : settings.jsonBodyLimit
        let declaredLength = request.headers[.contentLength].flatMap { Int($0) }
        if let declaredLength, declaredLength > limit {
            throw ServiceError(.payloadTooLarge, "The body is larger than this route accepts (\(limit) bytes).")
        }

        var upstream = HTTPClientRequest(url: client.url(of: route.service, path: request.uri.description))
        upstream.method = HTTPMethod(rawValue: request.method.rawValue)
        upstream.headers = HeaderPolicy.upstreamHeaders(from: request.headers, clientAddress: clientAddress)
        let tripWire = TripWire()
        let drainLimit = max(settings.jsonBodyLimit, 4 << 20)
        let timeout = route.body == .upload ? settings.uploadTimeout : settings.upstreamTimeout
        let response: HTTPClientResponse
        do {
            if request.method != .get, request.method != .head, declaredLength != 0 {
                let pipe = BodyPipe()
                upstream.body = .stream(pipe.sequence, length: declaredLength.map { .known(Int64($0)) } ?? .unknown)
                let body = LimitedBody(base: request.body, limit: limit, tripped: tripWire)
                let outgoing = upstream
                let client = route.body == .upload ? uploadClient : client
                response = try await withThrowingTaskGroup(of: HTTPClientResponse?.self) { group in
                    group.addTask {
                        await BodyPump.run(body, into: pipe, drainLimit: drainLimit)
                        return nil
                    }
                    group.addTask {
                        do {
                            let answer = try await client.execute(outgoing, timeout: .seconds(timeout))
                            // An upstream that answered early takes no more bytes.
                            await pipe.finish(CancellationError())
                            return answer
                        } catch {
                            await pipe.finish(error)
                            throw error
                        }
                    }
                    // Both end before the handler answers: the pump is the only body reader.
                    var answer: HTTPClientResponse?
                    var failure: (any Error)?
                    while let result = await group.nextResult() {
                        switch result {
                        case .success(let value): if let value { answer = value }
                        case .failure(let error): failure = error
                        }
                    }
                    if let answer { return answer }
                    throw failure ?? CancellationError()
                }
            } else {
                response = try await client.execute(upstream, timeout: .seconds(timeout))
            }
        } catch {
            if tripWire.isTripped {
                throw ServiceError(.payloadTooLarge, "The body is larger than this route accepts (\(limit) bytes).")
            }
            context.logger.warning(
                "upstream failed", metadata: ["service": "\(route.service.rawValue)", "error": "\(error)"])
            throw InternalClient.upstreamError(error)
        }
        var headers = HeaderPolicy.downstreamHeaders(from: response.headers)
        headers.append(contentsOf: rateHeaders)
        return Response(
            status: HTTPResponse.Status(code: Int(response.status.code)), headers: headers,
            body: ResponseBody(asyncSequence: response.body))
    }
}
