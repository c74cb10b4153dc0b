import AsyncHTTPClient
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import ServiceHTTP

/// The hop for upload bodies (tus, presigned PUTs, photos): HTTP/1.1 over mutual TLS through
/// AsyncHTTPClient, one connection per upload in flight.
///
/// Through the gateway's HTTP/2 hop, with every service advertising 1 MiB windows, 100 MiB
/// uploads ran at 0.12× `sha256sum` and the media process peaked 117 MiB higher; over
/// HTTP/1.1 they run at about half of `sha256sum` with memory flat (`docs/PERFORMANCE.md`).
/// HTTP/1.1 shares no connection between requests, so one upload's failure cannot end
/// another's.
struct UploadForwarder: Sendable {
    let client: InternalClient
    let settings: GatewaySettings

    func forward(_ request: Request, to service: ServiceName, clientAddress: String?) async throws -> Response {
        var upstream = HTTPClientRequest(url: client.url(of: service, path: request.uri.description))
        upstream.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in HeaderPolicy.upstreamFields(from: request.headers, clientAddress: clientAddress) {
            upstream.headers.add(name: field.name.canonicalName, value: field.value)
        }
        let timeout = TimeAmount.seconds(settings.uploadTimeout)
        let length = request.headers[.contentLength].flatMap { Int($0) }
        let response: HTTPClientResponse
        if request.method != .get, request.method != .head, length != 0 {
            response = try await BodyPump.send(
                upstream, body: request.body, length: length, through: client, timeout: timeout,
                drainLimit: settings.drainLimit)
        } else {
            response = try await client.execute(upstream, timeout: timeout)
        }
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return Response(
            status: .init(code: Int(response.status.code)), headers: HeaderPolicy.downstreamFields(from: fields),
            body: ResponseBody(asyncSequence: response.body))
    }
}
