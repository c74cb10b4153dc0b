import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore
import TestSupport
import Testing

@testable import ServiceHTTP

@Suite struct RequestBodyDrainTests {
    /// A service that refuses a streamed upload without reading it must still let the caller's
    /// HTTP/2 stream finish: AsyncHTTPClient, which the gateway uses, otherwise never finishes
    /// shutting down (and can crash when the connection closes).
    @Test func anEarlyAnswerLeavesTheCallersStreamsClean() async throws {
        try await withTestDataDirectory { directory in
            let port = try FreePort.next()
            let runtime = try ServiceRuntime(name: .alerts, reader: directory.reader(["http.port": "\(port)"]))
            let router = runtime.makeRouter(context: ServiceRequestContext.self)
            _ = runtime.makeRoutes(on: router, verifier: runtime.makeTokenVerifier(), readiness: [:])
            router.post("/refuse") { _, _ -> Response in throw ServiceError.authenticationRequired }
            let app = try await RunningApplication.start(try runtime.makeApplication(ServiceParts(router: router)))
            let client = try TestHTTP.client(dataDirectory: directory.url, identity: .feed)
            do {
                #expect(
                    await eventually {
                        (try? await client.call(.GET, "https://127.0.0.1:\(port)/health/live"))?.status == 200
                    })
                for _ in 0..<10 {
                    var request = HTTPClientRequest(url: "https://127.0.0.1:\(port)/refuse")
                    request.method = .POST
                    let chunks = (0..<64).map { _ in ByteBuffer(repeating: 0x61, count: 16_384) }
                    request.body = .stream(chunks.async, length: .unknown)
                    let response = try await client.execute(request, timeout: .seconds(10))
                    #expect(response.status.code == 401)
                }
            } catch {
                // A client left running would crash the whole test process on deinit.
                _ = await Self.shutDown(client)
                await app.stop()
                throw error
            }
            #expect(await Self.shutDown(client), "the HTTP client did not finish shutting down")
            await app.stop()
        }
    }

    /// Whether `client` finishes shutting down within ten seconds.
    static func shutDown(_ client: HTTPClient) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await client.shutdown()) != nil }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
