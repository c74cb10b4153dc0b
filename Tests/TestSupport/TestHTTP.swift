import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import ServiceHTTP

/// HTTP clients for tests.
public enum TestHTTP {
    /// A client that trusts the test authority and presents the certificate of `identity`
    /// (or none), speaking HTTP/2 where the server offers it.
    public static func client(dataDirectory: URL, identity: ServiceName?) throws -> HTTPClient {
        var tls = try tlsConfiguration(dataDirectory: dataDirectory)
        if let identity {
            let paths = PKIPaths(dataDirectory: dataDirectory, name: identity)
            tls.certificateChain = try NIOSSLCertificate.fromPEMFile(paths.certificate.path).map { .certificate($0) }
            tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: paths.key.path, format: .pem))
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            // Loopback connects are instant on an idle machine; at the start of a full run every
            // suite handshakes on two cores at once.
            timeout: .init(connect: .seconds(10), read: .seconds(30)))
        configuration.httpVersion = .automatic
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Runs `body` with a ``client(dataDirectory:identity:)`` and shuts it down on every path
    /// (a client left running crashes the test process when it is released).
    public static func withClient<T>(
        dataDirectory: URL, identity: ServiceName?, _ body: (HTTPClient) async throws -> T
    ) async throws -> T {
        let client = try self.client(dataDirectory: dataDirectory, identity: identity)
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// A client TLS configuration that trusts the test authority.
    public static func tlsConfiguration(dataDirectory: URL) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(
            try NIOSSLCertificate.fromPEMFile(dataDirectory.appendingPathComponent("pki/ca.crt").path))
        return tls
    }
}

/// A response read in full.
public struct FullResponse: Sendable {
    public let status: Int
    public let headers: [(String, String)]
    public let body: Data
    public let version: HTTPVersion

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONCoding.decoder().decode(type, from: body)
    }

    public var errorCode: ErrorCode? {
        (try? decode(ErrorEnvelope.self))?.error.code
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

extension HTTPClient {
    /// Sends a request and reads the whole response.
    public func call(
        _ method: NIOHTTP1.HTTPMethod, _ url: String, token: String? = nil, json: (any Encodable)? = nil,
        bytes: Data? = nil, headers: [(String, String)] = []
    ) async throws -> FullResponse {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let token { request.headers.add(name: "authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONCoding.encoder().encode(json)))
        }
        if let bytes { request.body = .bytes(ByteBuffer(bytes: bytes)) }
        let response = try await execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 << 20)
        return FullResponse(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: Data(body.readableBytesView), version: response.version)
    }
}
