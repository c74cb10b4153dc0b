import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

/// Reads a server-sent event stream (`text/event-stream`) as it arrives, on a client of its
/// own so that ``stop()`` closes the connection as an app going away does.
public final class EventStreamReader: Sendable {
    /// One event: its `id:`, `event:` (`message` when absent) and `data:` lines.
    public struct Event: Sendable {
        public var id: String?
        public var name: String
        public var data: String
    }

    final class State: Sendable {
        let value = Mutex<(events: [Event], ended: Bool)>(([], false))
    }

    public let status: Int
    public let contentType: String?
    private let state = State()
    private let task: Task<Void, Never>
    private let http: HTTPClient

    public var events: [Event] { state.value.withLock { $0.events } }
    /// Whether the server ended the stream (or the connection broke).
    public var ended: Bool { state.value.withLock { $0.ended } }

    /// Opens `url` with `token` as the bearer; over `https://`, trusting the local authority
    /// of `dataDirectory` (HTTP/2 where offered).
    public init(url: String, token: String, dataDirectory: URL? = nil) async throws {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "authorization", value: "Bearer \(token)")
        request.headers.add(name: "accept", value: "text/event-stream")
        http =
            try dataDirectory.map { try TestHTTP.client(dataDirectory: $0, identity: nil) }
            ?? HTTPClient(eventLoopGroupProvider: .singleton)
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, timeout: .seconds(30))
        } catch {
            try? await http.shutdown()
            throw error
        }
        status = Int(response.status.code)
        contentType = response.headers.first(name: "content-type")
        let state = self.state
        task = Task {
            var text = ""
            do {
                for try await buffer in response.body {
                    text += String(buffer: buffer)
                    while let end = text.range(of: "\n\n") {
                        let block = text[..<end.lowerBound]
                        text = String(text[end.upperBound...])
                        if let event = Self.parse(block) { state.value.withLock { $0.events.append(event) } }
                    }
                }
            } catch {}
            state.value.withLock { $0.ended = true }
        }
    }

    static func parse(_ block: Substring) -> Event? {
        var event = Event(id: nil, name: "message", data: "")
        var sawData = false
        for line in block.split(separator: "\n") {
            if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
            if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") {
                event.data += (sawData ? "\n" : "") + line.dropFirst(6)
                sawData = true
            }
        }
        return sawData ? event : nil
    }

    /// Waits until `count` events have arrived.
    /// (Thirty seconds by default: stack tests share two cores in CI, and a first event once took
    /// over ten there while the stream itself worked.)
    public func waitFor(_ count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await eventually(timeout: timeout) { events.count >= count }
    }

    /// Stops reading and closes the connection.
    public func stop() async {
        task.cancel()
        try? await http.shutdown()
    }

    /// A reader let go without ``stop()`` (its test failed before that) still shuts its client
    /// down: AsyncHTTPClient traps on a client released while running, which took the whole
    /// test run with it. A second shutdown after ``stop()`` only reports that it was done.
    deinit {
        task.cancel()
        http.shutdown { _ in }
    }
}
