import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization

/// A transport that answers from a closure and records every request it was sent.
final class FakeTransport: ClientTransport, Sendable {
    struct Sent: Sendable {
        let request: HTTPRequest
        let body: Data?
        let operationID: String
    }

    typealias Answer = @Sendable (Sent) async throws -> (HTTPResponse, Data?)

    private let answer: Answer
    private let log = Mutex<[Sent]>([])

    init(_ answer: @escaping Answer) { self.answer = answer }

    var sent: [Sent] { log.withLock { $0 } }

    func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (
        HTTPResponse, HTTPBody?
    ) {
        let bytes: Data? = if let body { try await Data(collecting: body, upTo: 64 << 20) } else { nil }
        let sent = Sent(request: request, body: bytes, operationID: operationID)
        log.withLock { $0.append(sent) }
        let (response, data) = try await answer(sent)
        return (response, data.map { HTTPBody($0) })
    }

    static func json(_ status: HTTPResponse.Status, _ text: String, headers: HTTPFields = [:]) -> (HTTPResponse, Data?)
    {
        var fields = headers
        fields[.contentType] = "application/json"
        return (HTTPResponse(status: status, headerFields: fields), Data(text.utf8))
    }

    static func error(_ status: HTTPResponse.Status, _ code: String, headers: HTTPFields = [:]) -> (HTTPResponse, Data?)
    {
        json(status, #"{"error":{"code":"\#(code)","message":"m","requestId":"r"}}"#, headers: headers)
    }

    static func tokens(_ access: String, _ refresh: String) -> String {
        #"{"accessToken":"\#(access)","tokenType":"Bearer","expiresIn":900,"refreshToken":"\#(refresh)","refreshExpiresIn":2592000,"sessionId":"s1"}"#
    }
}
