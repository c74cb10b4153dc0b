import AsyncHTTPClient
import Foundation
import HummingbirdWSClient
import Logging
import NIOWebSocket
import ServiceHTTP
import Synchronization

/// Debian's Chromium, headless, driven over the Chrome DevTools Protocol (a WebSocket on a
/// loopback port), as a person at a browser would use a page: open it, fill a form, press its
/// button, read what it shows, take a screenshot.
public final class HeadlessChromium: Sendable {
    private let process: ChildProcess
    private let port: Int

    /// `chromium` from Debian (`./scripts/setup --test` installs it), or nil.
    public static var executable: URL? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].map(URL.init(fileURLWithPath:))
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    private init(process: ChildProcess, port: Int) {
        self.process = process
        self.port = port
    }

    /// Starts Chromium with a fresh profile in `directory`. It accepts the stack's certificate
    /// from the test authority (`--ignore-certificate-errors`: a test browser, on loopback).
    public static func start(in directory: URL) async throws -> HeadlessChromium {
        guard let executable else { throw StackError("chromium is not installed: run ./scripts/setup --test") }
        let profile = directory.appendingPathComponent("chromium-profile")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let process = try ChildProcess(
            name: "chromium", executable: executable,
            arguments: [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--no-default-browser-check", "--ignore-certificate-errors", "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0", "--remote-allow-origins=*", "--user-data-dir=\(profile.path)",
                "about:blank",
            ], environment: ProcessInfo.processInfo.environment, onLine: { _ in })
        let portFile = profile.appendingPathComponent("DevToolsActivePort")
        for _ in 0..<300 {
            if let text = try? String(contentsOf: portFile, encoding: .utf8),
                let port = text.split(separator: "\n").first.flatMap({ Int($0) })
            {
                return HeadlessChromium(process: process, port: port)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        await process.stop(grace: .seconds(2))
        throw StackError("chromium did not open its DevTools port")
    }

    /// The browser's first tab.
    public func page() async throws -> BrowserPage {
        struct Target: Decodable {
            var type: String
            var webSocketDebuggerUrl: String?
        }
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(port)/json/list"), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        let targets = try JSONDecoder().decode([Target].self, from: Data(buffer: body))
        guard let url = targets.first(where: { $0.type == "page" })?.webSocketDebuggerUrl else {
            throw StackError("chromium has no page to drive")
        }
        let page = BrowserPage(url: url)
        _ = try await page.send("Page.enable")
        return page
    }

    public func stop() async {
        await process.stop(grace: .seconds(5))
    }
}

/// One tab, over its DevTools WebSocket: commands answered by id, page loads counted.
public final class BrowserPage: Sendable {
    struct State {
        var nextID = 0
        var waiting: [Int: CheckedContinuation<Data, any Error>] = [:]
        var loads = 0
        var ended: String?
    }

    final class Shared: Sendable {
        let value = Mutex(State())
    }

    private let shared = Shared()
    private let outbound: AsyncStream<String>.Continuation
    private let task: Task<Void, Never>

    init(url: String) {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        self.outbound = continuation
        let state = self.shared
        task = Task {
            do {
                _ = try await WebSocketClient.connect(
                    url: url, configuration: WebSocketClientConfiguration(maxFrameSize: 64 << 20),
                    logger: Logger.test("test.chromium")
                ) { inbound, writer, _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { for await text in stream { try await writer.write(.text(text)) } }
                        for try await message in inbound.messages(maxSize: 64 << 20) {
                            guard case .text(let text) = message else { continue }
                            Self.receive(Data(text.utf8), into: state)
                        }
                        group.cancelAll()
                    }
                }
                Self.end(state, "the DevTools connection closed")
            } catch {
                Self.end(state, "the DevTools connection failed: \(error)")
            }
        }
    }

    private static func receive(_ data: Data, into state: Shared) {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return }
        if let id = object["id"] as? Int {
            let continuation = state.value.withLock { $0.waiting.removeValue(forKey: id) }
            if let error = object["error"] as? [String: Any] {
                continuation?.resume(throwing: StackError("DevTools: \(error["message"] ?? error)"))
            } else {
                let result = (try? JSONSerialization.data(withJSONObject: object["result"] ?? [:])) ?? Data()
                continuation?.resume(returning: result)
            }
        } else if object["method"] as? String == "Page.loadEventFired" {
            state.value.withLock { $0.loads += 1 }
        }
    }

    private static func end(_ state: Shared, _ reason: String) {
        let waiting = state.value.withLock { state in
            state.ended = reason
            defer { state.waiting = [:] }
            return state.waiting.values
        }
        for continuation in waiting { continuation.resume(throwing: StackError(reason)) }
    }

    /// Sends DevTools command `method` and returns its result (JSON).
    @discardableResult
    public func send(_ method: String, _ params: [String: any Sendable] = [:]) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            let message: Data? = shared.value.withLock { state in
                if let ended = state.ended {
                    continuation.resume(throwing: StackError(ended))
                    return nil
                }
                state.nextID += 1
                state.waiting[state.nextID] = continuation
                return try? JSONSerialization.data(withJSONObject: [
                    "id": state.nextID, "method": method, "params": params,
                ])
            }
            if let message { outbound.yield(String(decoding: message, as: UTF8.self)) }
        }
    }

    /// Runs `script` in the page and returns its value as JSON.
    public func evaluate(_ script: String) async throws -> Any? {
        let result = try await send("Runtime.evaluate", ["expression": script, "returnByValue": true])
        let object = try JSONSerialization.jsonObject(with: result) as? [String: Any]
        if let thrown = object?["exceptionDetails"] { throw StackError("the page's script failed: \(thrown)") }
        return (object?["result"] as? [String: Any])?["value"]
    }

    /// Runs `action` (a navigation, a click) and waits until the page it leads to has loaded.
    public func loading(_ action: () async throws -> Void) async throws {
        let before = shared.value.withLock { $0.loads }
        try await action()
        guard await eventually(timeout: .seconds(20), { shared.value.withLock { $0.loads } > before }) else {
            throw StackError("the page did not load")
        }
    }

    public func open(_ url: String) async throws {
        try await loading { try await send("Page.navigate", ["url": url]) }
    }

    /// Fills the fields (by CSS selector) and clicks `button`, as a person would, then waits for
    /// the answer's page.
    public func submit(_ fields: [String: String], clicking button: String) async throws {
        var script = ""
        for (selector, value) in fields {
            let encoded = String(
                decoding: try JSONSerialization.data(withJSONObject: [selector, value]), as: UTF8.self)
            script += "{ const [s, v] = \(encoded); document.querySelector(s).value = v; }\n"
        }
        let clicked = String(decoding: try JSONSerialization.data(withJSONObject: [button]), as: UTF8.self)
        script += "document.querySelector(\(clicked)[0]).click(); true"
        try await loading { _ = try await evaluate(script) }
    }

    /// The page's visible text.
    public func text() async throws -> String {
        try await evaluate("document.body.innerText") as? String ?? ""
    }

    public func location() async throws -> String {
        try await evaluate("location.pathname + location.search") as? String ?? ""
    }

    /// A PNG of the whole page at `width` CSS pixels (a phone's, with `mobile`), saved to `file`.
    public func screenshot(to file: URL, width: Int, height: Int, mobile: Bool) async throws {
        try await send(
            "Emulation.setDeviceMetricsOverride",
            ["width": width, "height": height, "deviceScaleFactor": mobile ? 2 : 1, "mobile": mobile])
        let result = try await send("Page.captureScreenshot", ["format": "png", "captureBeyondViewport": true])
        let object = try JSONSerialization.jsonObject(with: result) as? [String: Any]
        guard let base64 = object?["data"] as? String, let png = Data(base64Encoded: base64) else {
            throw StackError("no screenshot")
        }
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try png.write(to: file)
        try await send("Emulation.clearDeviceMetricsOverride")
    }

    public func close() async {
        outbound.finish()
        task.cancel()
        _ = await task.value
    }
}
