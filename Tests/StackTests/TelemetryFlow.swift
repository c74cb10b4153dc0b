import Foundation
import ServiceHTTP
import TestSupport
import Testing

/// OpenTelemetry over the real executables: the stack exports to a stand-in collector
/// (OTLP/HTTP in JSON), and one request through the gateway is one trace across two processes,
/// down to the database transactions it ran; internal calls and outbox deliveries are spans
/// too, and metrics arrive beside Prometheus.
struct TelemetryFlow {
    let flow: SliceFlow
    let collector: FakeOTLPCollector

    /// What the stack needs to export to `collector`.
    static func environment(_ collector: FakeOTLPCollector) -> [String: String] {
        [
            ConfigKeys.environmentName("otel.endpoint"): collector.url,
            ConfigKeys.environmentName("otel.protocol"): "http/json",
            ConfigKeys.environmentName("otel.exportIntervalSeconds"): "1",
        ]
    }

    func run() async throws {
        let tess = try await flow.signUp("Tess")
        let answer = try await flow.call(.GET, "/v1/me", as: tess)
        let trace = try #require(answer.header("traceparent").flatMap(TraceParent.init(header:)))
        // The gateway's server span is the one its answer names; auth's is its child.
        let found = await flow.eventually {
            let spans = collector.spans.filter { $0.traceID == trace.traceID }
            return spans.contains { $0.service == "gateway" && $0.kind == 2 && $0.spanID == trace.parentID }
                && spans.contains { $0.service == "auth" && $0.kind == 2 && $0.parentSpanID == trace.parentID }
        }
        let seen = collector.spans.filter { $0.traceID == trace.traceID }
        #expect(found, "the trace \(trace.traceID) did not cross gateway and auth: \(seen)")
        #expect(seen.filter { $0.kind == 2 }.allSatisfy { $0.name == "GET /v1/me" }, "\(seen.map(\.name))")
        // auth's database transactions are spans of its request.
        let authSpan = seen.first { $0.service == "auth" && $0.kind == 2 }
        #expect(
            await flow.eventually {
                collector.spans.contains { $0.name == "sqlite read" && $0.parentSpanID == authSpan?.spanID }
            }, "auth's read of the user was not a span of its request: \(seen)")

        // Internal calls are client spans whose callee's server span is their child, and
        // outbox deliveries producer spans (the slice before this made plenty of both).
        #expect(
            await flow.eventually {
                let spans = collector.spans
                return spans.contains { client in
                    client.kind == 3 && spans.contains { $0.kind == 2 && $0.parentSpanID == client.spanID }
                }
            }, "no internal call was traced into its callee")
        #expect(await flow.eventually { collector.spans.contains { $0.kind == 4 && $0.name == "outbox deliver" } })
        #expect(await flow.eventually { !collector.metricNames.isEmpty }, "no metrics were exported")
        // How auth's writes (Tess's sign-up) waited for its database's writer and held it.
        let metrics = try await flow.stack.internalClient.call(.GET, flow.stack.serviceURL(.auth) + "/metrics").text
        for name in ["pinhole_sqlite_write_wait_count", "pinhole_sqlite_write_held_count"] {
            let line = metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }
            let count = line.flatMap { Double($0.split(separator: " ").last ?? "") }
            #expect(count.map { $0 > 0 } == true, "\(name): \(line ?? "missing")")
        }
    }
}
