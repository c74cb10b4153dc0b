import AsyncHTTPClient
import Hummingbird
import NIOCore
import NIOHTTP1
import ServiceKit

/// The end of the pipeline: sends the request to its route's service over mutual TLS (HTTP/2;
/// HTTP/1.1 for upload bodies, which HTTP/2's flow-control windows would hold back) with the
/// client's headers minus anything internal, and streams the answer back. Bodies stream both
/// ways; a service that cannot be reached gives a fast 503 `UPSTREAM_UNAVAILABLE`.
struct Forwarder: Sendable {
    let client: InternalClient
    let uploadClient: InternalClient
    let settings: GatewaySettings

    @Sendable func forward(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        let route = try context.requireRoute()
        let uploads = route.body == .upload
        var upstream = HTTPClientRequest(url: client.url(of: route.service, path: request.uri.description))
        upstream.method = HTTPMethod(rawValue: request.method.rawValue)
        upstream.headers = HeaderPolicy.upstreamHeaders(from: request.headers, clientAddress: context.clientAddress)
        let (client, timeout) = uploads ? (uploadClient, settings.uploadTimeout) : (client, settings.upstreamTimeout)
        let length = request.headers[.contentLength].flatMap { Int($0) }
        let response: HTTPClientResponse
        do {
            if request.method != .get, request.method != .head, length != 0 {
                response = try await BodyPump.send(
                    upstream, body: request.body, length: length, through: client, timeout: .seconds(timeout),
                    drainLimit: settings.drainLimit)
            } else {
                response = try await client.execute(upstream, timeout: .seconds(timeout))
            }
        } catch {
            let failure = InternalClient.upstreamError(error)
            if failure.code == .upstreamUnavailable || failure.code == .upstreamTimeout {
                context.logger.warning(
                    "upstream failed", metadata: ["service": "\(route.service.rawValue)", "error": "\(error)"])
            }
            throw failure
        }
        return Response(
            status: .init(code: Int(response.status.code)),
            headers: HeaderPolicy.downstreamHeaders(from: response.headers),
            body: ResponseBody(asyncSequence: response.body))
    }
}
