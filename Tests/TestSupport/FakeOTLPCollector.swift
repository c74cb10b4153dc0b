import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceHTTP
import Synchronization

/// A stand-in OpenTelemetry collector: takes OTLP/HTTP exports in JSON (`POST /v1/traces`,
/// `POST /v1/metrics`) on a loopback port and keeps the spans and metric names it was sent.
public final class FakeOTLPCollector: Sendable {
    /// One received span: who sent it and where it sits in its trace.
    public struct Span: Sendable, Equatable {
        public let service: String
        public let name: String
        /// 32 hex digits.
        public let traceID: String
        /// 16 hex digits.
        public let spanID: String
        /// 16 hex digits, or nil for a trace's root.
        public let parentSpanID: String?
        /// OTLP's span kind: 2 server, 3 client, 4 producer.
        public let kind: Int
    }

    public let url: String
    private let state = Mutex<(spans: [Span], metrics: Set<String>)>(([], []))
    private let running = Mutex<RunningApplication?>(nil)

    private init(url: String) { self.url = url }

    public static func start() async throws -> FakeOTLPCollector {
        let port = try FreePort.next()
        let collector = FakeOTLPCollector(url: "http://127.0.0.1:\(port)")
        let router = Router()
        router.post("/v1/traces") { request, _ in
            let body = try await request.body.collect(upTo: 64 << 20)
            collector.receiveSpans(Data(buffer: body))
            return Self.accepted
        }
        router.post("/v1/metrics") { request, _ in
            let body = try await request.body.collect(upTo: 64 << 20)
            collector.receiveMetrics(Data(buffer: body))
            return Self.accepted
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: .test("fake"))
        let started = try await RunningApplication.start(app)
        collector.running.withLock { $0 = started }
        return collector
    }

    public func stop() async {
        await running.withLock { $0 }?.stop()
    }

    public var spans: [Span] { state.withLock { $0.spans } }
    public var metricNames: Set<String> { state.withLock { $0.metrics } }

    /// OTLP/HTTP's answer to an export: an empty `Export…ServiceResponse`.
    static var accepted: Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
    }

    private func receiveSpans(_ data: Data) {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return }
        var received: [Span] = []
        for resource in root["resourceSpans"] as? [[String: Any]] ?? [] {
            let service = Self.serviceName(resource["resource"])
            for scope in resource["scopeSpans"] as? [[String: Any]] ?? [] {
                for span in scope["spans"] as? [[String: Any]] ?? [] {
                    guard let trace = Self.hex(span["traceId"]), let id = Self.hex(span["spanId"]) else { continue }
                    received.append(
                        Span(
                            service: service, name: span["name"] as? String ?? "", traceID: trace, spanID: id,
                            parentSpanID: Self.hex(span["parentSpanId"]), kind: span["kind"] as? Int ?? 0))
                }
            }
        }
        state.withLock { $0.spans += received }
    }

    private func receiveMetrics(_ data: Data) {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return }
        var names: Set<String> = []
        for resource in root["resourceMetrics"] as? [[String: Any]] ?? [] {
            for scope in resource["scopeMetrics"] as? [[String: Any]] ?? [] {
                for metric in scope["metrics"] as? [[String: Any]] ?? [] {
                    if let name = metric["name"] as? String { names.insert(name) }
                }
            }
        }
        state.withLock { $0.metrics.formUnion(names) }
    }

    private static func serviceName(_ resource: Any?) -> String {
        let attributes = (resource as? [String: Any])?["attributes"] as? [[String: Any]] ?? []
        let name = attributes.first { $0["key"] as? String == "service.name" }
        return ((name?["value"] as? [String: Any])?["stringValue"] as? String) ?? "?"
    }

    /// Trace and span ids: protobuf's JSON writes bytes in base64 (OTLP's own JSON in hex).
    private static func hex(_ value: Any?) -> String? {
        guard let text = value as? String, !text.isEmpty else { return nil }
        if text.count == 32 || text.count == 16, text.allSatisfy(\.isHexDigit) { return text.lowercased() }
        guard let bytes = Data(base64Encoded: text), !bytes.isEmpty else { return nil }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }
}
