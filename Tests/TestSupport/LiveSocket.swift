import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOSSL
import NIOWebSocket
import Synchronization

/// A WebSocket client held open in the background, recording the text messages it receives
/// and how the server closed it.
public final class LiveSocket: Sendable {
    final class State: Sendable {
        let value = Mutex<(messages: [String], closeCode: Int?, ended: Bool, failure: String?)>(([], nil, false, nil))
    }

    private let state = State()
    private let task: Task<Void, Never>

    public var messages: [String] { state.value.withLock { $0.messages } }
    /// The code of the server's close frame, once it closed.
    public var closeCode: Int? { state.value.withLock { $0.closeCode } }
    public var ended: Bool { state.value.withLock { $0.ended } }
    /// Why the connection could not be opened (an upgrade refused, say).
    public var failure: String? { state.value.withLock { $0.failure } }

    /// Connects to `url` (`ws://` or `wss://`, naming `serverName` in TLS), with `token` as
    /// the bearer.
    public init(url: String, token: String?, tls: TLSConfiguration? = nil, serverName: String? = nil) {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: 1 << 20, additionalHeaders: headers, sniHostname: serverName)
        let state = self.state
        task = Task {
            do {
                let close = try await WebSocketClient.connect(
                    url: url, configuration: configuration, tlsConfiguration: tls, logger: Logger.test("test.ws")
                ) { inbound, _, _ in
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        if case .text(let text) = message { state.value.withLock { $0.messages.append(text) } }
                    }
                }
                state.value.withLock { $0.closeCode = close.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) } }
            } catch {
                state.value.withLock { $0.failure = "\(error)" }
            }
            state.value.withLock { $0.ended = true }
        }
    }

    /// Waits until `count` messages have arrived.
    /// (Thirty seconds by default: stack tests share two cores in CI, and a first event once took
    /// over ten there while the stream itself worked.)
    public func waitFor(_ count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await eventually(timeout: timeout) { messages.count >= count }
    }

    /// Waits until the connection has ended.
    public func waitForEnd(timeout: Duration = .seconds(10)) async -> Bool {
        await eventually(timeout: timeout) { ended }
    }

    /// Closes from the client's side.
    public func stop() async {
        task.cancel()
        _ = await task.value
    }
}
