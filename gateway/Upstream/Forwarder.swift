import Contracts
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes
import ServiceHTTP

/// The end of the pipeline: sends the request to its route's service on a stream of the
/// gateway's own HTTP/2 connections (``UpstreamPool``; upload bodies go through
/// ``UploadForwarder``) with the client's headers minus anything internal, and streams the
/// answer back. Bodies stream both ways, paced by HTTP/2 flow
/// control; a service that cannot be reached gives a fast 503 `UPSTREAM_UNAVAILABLE`, one that
/// does not answer in time a 504 `UPSTREAM_TIMEOUT`. Either ends this request only.
struct Forwarder: Sendable {
    let pool: UpstreamPool
    let uploads: UploadForwarder
    let settings: GatewaySettings

    @Sendable func forward(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        let route = try context.requireRoute()
        // A client that sent `Expect: 100-continue` holds its body back until told to send it
        // (curl waits a second, then sends anyway). Whatever could refuse the request from its
        // head (route, token, rate limit, declared length) has passed by now.
        if request.headers[.expect]?.lowercased() == "100-continue" {
            try? await InformationalResponses.current?.send(HTTPResponse(status: .continue))
        }
        // The body is read from here on: an HTTP/2 stream gets its full window.
        context.widenStreamWindow()
        // Uploads stream over HTTP/1.1; a TRACE (which no route takes) goes the plain way to be refused.
        if route.body == .upload, request.method != .trace {
            do {
                return try await uploads.forward(request, to: route.service, clientAddress: context.clientAddress)
            } catch {
                throw failure(InternalClient.upstreamError(error), service: route.service, context: context)
            }
        }
        // A resumable upload's answer comes when its body is in: it has an upload's time.
        let timeout = route.body == .resumableUpload ? settings.uploadTimeout : settings.upstreamTimeout
        var head = request.head
        head.scheme = "https"
        head.authority = pool.authority(of: route.service)
        head.headerFields = HeaderPolicy.upstreamFields(from: request.headers, clientAddress: context.clientAddress)
        let exchange: UpstreamExchange
        do {
            exchange =
                route.body == .resumableUpload
                ? try await pool.openUploadExchange(to: route.service) : try await pool.openStream(to: route.service)
        } catch {
            throw failure(error, service: route.service, context: context)
        }
        // The timer ends the exchange (and so a request body still being written) if no answer
        // has begun in time.
        let timer = exchange.channel.eventLoop.scheduleTask(in: .seconds(timeout)) {
            exchange.cancel(UpstreamError.timedOut)
        }
        defer { timer.cancel() }
        // A resumable upload's informational answers go to the client as they come (the 104
        // before the body is through), all before the final answer's head. Other exchanges have
        // none to relay.
        let relay = exchange.informational.map { heads in
            Task { [informational = InformationalResponses.current] in
                for await early in heads {
                    var early = early
                    early.headerFields = HeaderPolicy.downstreamFields(from: early.headerFields)
                    try? await informational?.send(early)
                }
            }
        }
        let response: HTTPResponse
        do {
            let length = request.headers[.contentLength].flatMap { Int($0) }
            if request.method != .get, request.method != .head, length != 0 {
                try await send(request.body, head: head, through: exchange)
            } else {
                // A GET or HEAD's body is not forwarded, and neither is its length: HTTP/2
                // would reset a stream that ends short of the length it announced.
                head.headerFields[.contentLength] = nil
                try await exchange.send(head: head, end: true)
            }
            response = try await exchange.head.get()
            await relay?.value
        } catch {
            // The relay is done before the answer is written, whatever happened.
            relay?.cancel()
            await relay?.value
            throw failure(error, service: route.service, context: context)
        }
        let headers = HeaderPolicy.downstreamFields(from: response.headerFields)
        guard let length = response.headerFields[.contentLength].flatMap({ Int($0) }), length <= Self.wholeBodyLimit
        else {
            return Response(status: response.status, headers: headers, body: ResponseBody(asyncSequence: exchange.body))
        }
        // A small answer is read whole and written with its head in one go: the client gets
        // END_STREAM on the last DATA frame (``StreamEndCoalescer``), not in a frame of its own
        // that some clients (curl) answer with RST_STREAM, which NIOHTTP2 counts as a flood.
        // NIOHTTP2 resets a stream whose body exceeds its content-length, so this is bounded.
        var whole = ByteBuffer()
        do {
            for try await chunk in exchange.body { whole.writeImmutableBuffer(chunk) }
        } catch {
            throw failure(error, service: route.service, context: context)
        }
        return Response(status: response.status, headers: headers, body: ResponseBody(byteBuffer: whole))
    }

    /// Answers up to this size (by their `content-length`) are read whole before the client gets
    /// them; larger or unsized ones stream.
    static let wholeBodyLimit = 64 << 10

    /// Writes the head and the body, each chunk once the stream took the one before. A service
    /// that stopped taking the body (it answered early, or reset the stream) gets no more: the
    /// rest is read and discarded, at most `drainLimit` bytes, so the client hears the answer.
    /// A body that broke off (too large, the client went away) ends the exchange with its
    /// error, which is what the client hears when the service gave no answer.
    private func send(_ body: RequestBody, head: HTTPRequest, through exchange: UpstreamExchange) async throws {
        try await exchange.send(head: head, end: false)
        var accepting = true
        var discarded = 0
        do {
            for try await chunk in body {
                if accepting {
                    do {
                        try await exchange.write(.body(chunk))
                    } catch {
                        accepting = false
                    }
                } else {
                    discarded += chunk.readableBytes
                    if discarded > settings.drainLimit { break }
                }
            }
            // A failure here is the service's; its answer (or its absence) tells the client.
            if accepting { try? await exchange.write(.end(nil)) }
        } catch {
            exchange.cancel(error)
            // An answer that already began wins over the body's own failure.
            if let answered = try? await exchange.head.get(), answered.status.code < 500 { return }
            throw error
        }
    }

    /// Maps a failed exchange to the stable upstream codes, logging what the client cannot see.
    private func failure(_ error: any Error, service: ServiceName, context: GatewayRequestContext) -> ServiceError {
        if let error = error as? ServiceError {
            if error.code == .upstreamUnavailable || error.code == .upstreamTimeout {
                context.logger.warning(
                    "upstream failed", metadata: ["service": "\(service.rawValue)", "error": "\(error)"])
            }
            return error
        }
        let failure: ServiceError
        if case UpstreamError.timedOut = error {
            failure = ServiceError(
                .upstreamTimeout, "An internal service did not answer in time.", headers: [.retryAfter: "1"])
        } else {
            failure = ServiceError(
                .upstreamUnavailable, "An internal service is unavailable; try again shortly.",
                headers: [.retryAfter: "1"])
        }
        context.logger.warning("upstream failed", metadata: ["service": "\(service.rawValue)", "error": "\(error)"])
        return failure
    }
}
