import AsyncHTTPClient
import Contracts
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import ServiceContextModule
import ServiceLifecycle
import Tracing

/// Limits of the internal client.
public struct InternalClientSettings: Sendable {
    /// How long to wait for a connection; a service that is down answers fast.
    public var connectTimeout: TimeAmount
    /// How long a whole request may take.
    public var requestTimeout: TimeAmount
    /// Largest response body the JSON helpers read.
    public var maxResponseBytes: Int

    public init(connectTimeout: TimeAmount, requestTimeout: TimeAmount, maxResponseBytes: Int) {
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maxResponseBytes = maxResponseBytes
    }
}

/// A response read in full by the internal client.
public struct InternalResponse: Sendable {
    public var status: HTTPResponseStatus
    public var headers: HTTPHeaders
    public var body: ByteBuffer

    public init(status: HTTPResponseStatus, headers: HTTPHeaders, body: ByteBuffer) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Decodes the body as JSON.
    public func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        do {
            return try JSONCoding.sharedDecoder.decode(type, from: Data(body.readableBytesView))
        } catch {
            throw ServiceError(.upstreamUnavailable, "An internal service answered in an unexpected format.")
        }
    }

    /// The error envelope the upstream sent, if it sent one.
    public var errorEnvelope: ErrorEnvelope? {
        try? JSONCoding.sharedDecoder.decode(ErrorEnvelope.self, from: Data(body.readableBytesView))
    }
}

/// Every call from one Pinhole executable to another: HTTP/2 over mutual TLS with this
/// executable's certificate, connect and request timeouts, bounded body reads, the request
/// id and `traceparent` of the current request, and upstream failures mapped to a 503
/// `UPSTREAM_UNAVAILABLE` (or 504 `UPSTREAM_TIMEOUT`).
public struct InternalClient: Sendable {
    /// The underlying client; the gateway streams through it directly.
    public var http: HTTPClient { owner.client }
    private let owner: OwnedHTTPClient
    let urls: [ServiceName: URL]
    let settings: InternalClientSettings
    let caller: ServiceName

    /// Creates the client. Shut it down through ``InternalClient/lifecycleService``.
    ///
    /// `http1Only` makes a client that never negotiates HTTP/2: the gateway streams large
    /// upload bodies over it, where HTTP/2's per-stream flow-control windows would make the
    /// transfer wait on window updates.
    public init(
        tls: TLSMaterial, settings: ServiceSettings,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, http1Only: Bool = false
    ) {
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls.clientConfiguration(),
            redirectConfiguration: .disallow,
            timeout: .init(connect: settings.client.connectTimeout, read: settings.client.requestTimeout),
            decompression: .disabled
        )
        configuration.httpVersion = http1Only ? .http1Only : .automatic
        // A service that is down must give a fast 503, not a request parked while the pool
        // retries the connection in the background.
        configuration.connectionPool.retryConnectionEstablishment = false
        // ``execute(_:timeout:)`` makes the call's span and sends its `traceparent`; the
        // client's own span would add a second `traceparent` the callee could not read.
        configuration.tracing.tracer = nil
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 32
        self.owner = OwnedHTTPClient(
            client: HTTPClient(eventLoopGroupProvider: .shared(eventLoopGroup), configuration: configuration))
        self.urls = settings.serviceURLs
        self.settings = settings.client
        self.caller = settings.name
    }

    /// The base URL of a service.
    public func url(of service: ServiceName, path: String) -> String {
        var base = urls[service]!.absoluteString
        if base.hasSuffix("/") { base.removeLast() }
        return base + path
    }

    /// Headers every internal request carries: trace, request id, the caller's name.
    public static func propagationHeaders() -> HTTPHeaders {
        var headers = HTTPHeaders()
        if let trace = ServiceContext.current?.requestTrace {
            headers.add(name: HeaderName.requestID, value: trace.requestID)
            headers.add(name: HeaderName.traceparent, value: trace.span.description)
            if let state = trace.traceState { headers.add(name: HeaderName.tracestate, value: state) }
        }
        return headers
    }

    /// Sends a request whose response body the caller streams. Connection failures and
    /// timeouts become ``ServiceError``s.
    public func execute(_ request: HTTPClientRequest, timeout: TimeAmount? = nil) async throws -> HTTPClientResponse {
        let path = URL(string: request.url)?.path ?? "/"
        return try await Telemetry.withSpan(
            Telemetry.spanName(method: request.method.rawValue, path: path), kind: .client
        ) { span, traceparent in
            var request = request
            // The callee's parent is this call's span.
            if let traceparent {
                request.headers.replaceOrAdd(name: HeaderName.traceparent, value: traceparent.description)
            }
            span?.attributes["http.request.method"] = request.method.rawValue
            span?.attributes["url.full"] = request.url
            do {
                let response = try await http.execute(request, timeout: timeout ?? settings.requestTimeout)
                span?.attributes["http.response.status_code"] = Int(response.status.code)
                return response
            } catch {
                span?.recordError(error)
                throw Self.upstreamError(error)
            }
        }
    }

    /// Sends a request and reads the whole (bounded) response; a body is JSON unless `headers`
    /// name its `content-type`.
    public func send(
        _ method: HTTPMethod, to service: ServiceName, path: String, body: ByteBuffer? = nil,
        headers extra: HTTPHeaders = [:], timeout: TimeAmount? = nil
    ) async throws -> InternalResponse {
        var request = HTTPClientRequest(url: url(of: service, path: path))
        request.method = method
        request.headers = Self.propagationHeaders()
        request.headers.add(contentsOf: extra)
        if let body {
            if !request.headers.contains(name: "content-type") {
                request.headers.add(name: "content-type", value: "application/json")
            }
            request.body = .bytes(body)
        }
        let response = try await execute(request, timeout: timeout)
        do {
            let body = try await response.body.collect(upTo: settings.maxResponseBytes)
            return InternalResponse(status: response.status, headers: response.headers, body: body)
        } catch {
            throw Self.upstreamError(error)
        }
    }

    /// GETs JSON from a service; any non-2xx answer is an upstream failure.
    public func get<Value: Decodable>(
        _ type: Value.Type, from service: ServiceName, path: String, headers: HTTPHeaders = [:]
    ) async throws -> Value {
        let response = try await send(.GET, to: service, path: path, headers: headers)
        guard (200..<300).contains(response.status.code) else {
            throw ServiceError(
                .upstreamUnavailable, "The \(service.rawValue) service answered \(response.status.code).")
        }
        return try response.decode(type)
    }

    /// POSTs JSON to a service and returns the whole response for the caller to judge.
    public func post(
        _ value: some Encodable, to service: ServiceName, path: String, headers: HTTPHeaders = [:]
    ) async throws -> InternalResponse {
        let data = try JSONCoding.sharedEncoder.encode(value)
        return try await send(.POST, to: service, path: path, body: ByteBuffer(bytes: data), headers: headers)
    }

    /// POSTs JSON to a service and decodes its answer; any non-2xx answer is an upstream
    /// failure (the caller asked for work the owner could not do now).
    public func post<Value: Decodable>(
        _ value: some Encodable, to service: ServiceName, path: String, answer type: Value.Type
    ) async throws -> Value {
        let response = try await post(value, to: service, path: path)
        guard (200..<300).contains(response.status.code) else {
            throw ServiceError(
                .upstreamUnavailable, "The \(service.rawValue) service answered \(response.status.code).",
                headers: [.retryAfter: "1"])
        }
        return try response.decode(type)
    }

    /// Maps transport failures to the stable upstream codes, the transport's error kept as the
    /// cause for the log.
    public static func upstreamError(_ error: any Error) -> ServiceError {
        if let error = error as? ServiceError { return error }
        if let error = error as? HTTPClientError,
            error == .deadlineExceeded || error == .readTimeout || error == .writeTimeout
        {
            return ServiceError(
                .upstreamTimeout, "An internal service did not answer in time.", headers: [.retryAfter: "1"],
                cause: String(describing: error))
        }
        return ServiceError(
            .upstreamUnavailable, "An internal service is unavailable; try again shortly.",
            headers: [.retryAfter: "1"], cause: String(describing: error))
    }

    /// A lifecycle service that shuts the client down when the application stops.
    public var lifecycleService: some Service { ClientShutdownService(client: http) }
}

/// Shuts the client down when the last copy of ``InternalClient`` goes away, even when the
/// application's lifecycle never ran (an application built but driven in-process by a test).
final class OwnedHTTPClient: Sendable {
    let client: HTTPClient

    init(client: HTTPClient) {
        self.client = client
    }

    deinit {
        client.shutdown { _ in }
    }
}

struct ClientShutdownService: Service {
    let client: HTTPClient

    /// Shuts the client down on graceful shutdown, waiting at most five seconds: a stuck
    /// connection must not keep the process from exiting.
    func run() async throws {
        try? await gracefulShutdown()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await client.shutdown() }
            group.addTask { try? await Task.sleep(for: .seconds(5)) }
            await group.next()
            group.cancelAll()
        }
    }
}
