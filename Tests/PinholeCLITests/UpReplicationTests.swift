import Foundation
import ServiceHTTP
import TestSupport
import Testing

@testable import PinholeCLI

/// `pinhole up` with `replication.url`: `pinhole replicate` runs beside the seven, under the same
/// supervision, and `pinhole status` shows it and each database's lag.
extension PinholeUpTests {
    @Test func upReplicatesBesideTheServicesRestartsItAndStatusShowsTheLag() async throws {
        guard let litestream = await Litestream.executable() else {
            Issue.record("litestream is missing: run ./scripts/setup")
            return
        }
        let directory = Self.temporaryDirectory("pinhole-up-replica")
        let replica = Self.temporaryDirectory("pinhole-replica")
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: replica)
        }
        var environment = try Self.environment()
        environment["REPLICATION_URL"] = "file://\(replica.path)"
        environment["REPLICATION_LITESTREAM"] = litestream.path
        environment["REPLICATION_METRICS_ADDRESS"] = "127.0.0.1:\(try FreePort.next())"
        let gatewayPort = try FreePort.next()
        let output = LineCollector()
        let up = try ChildProcess(
            name: "pinhole", executable: Stack.binaryDirectory().appendingPathComponent("pinhole"),
            arguments: ["up", "--data-dir", directory.path, "--gateway-port", "\(gatewayPort)"],
            environment: environment, onLine: output.append)
        let ready = await eventually(timeout: .seconds(60)) {
            output.lines.contains("pinhole: gateway at http://127.0.0.1:\(gatewayPort)")
        }
        #expect(ready, "\(output.lines.suffix(30).joined(separator: "\n"))")
        #expect(output.lines.contains { $0.hasPrefix("replicate  | pinhole: replicating 7 databases to file://") })

        // Every database reaches the replica, and status says so.
        let status = LineCollector()
        let replicated = await eventually(timeout: .seconds(30)) {
            let lines =
                (try? await Self.status(directory: directory, gatewayPort: gatewayPort, environment: environment)) ?? []
            status.replace(with: lines)
            let databases = ServiceName.services.map(\.rawValue) + ["files"]
            return lines.contains { $0.hasPrefix("replicate ") && $0.contains(" running ") }
                && databases.allSatisfy { name in lines.contains { $0.hasPrefix(name + " ") && $0.hasSuffix("s") } }
        }
        #expect(replicated, "\(status.lines.joined(separator: "\n"))")
        for service in ServiceName.services {
            #expect(
                FileManager.default.fileExists(atPath: replica.appendingPathComponent("\(service.rawValue)/ltx").path))
        }

        // Killed, it is started again, and the Litestream the old one left does not run on.
        let record =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: directory.appendingPathComponent("run/stack.json"))) as? [String: Any]
        let entry = (record?["processes"] as? [[String: Any]])?.first { $0["name"] as? String == "replicate" }
        let replicate = try #require(entry?["pid"] as? Int32)
        let leftover = try #require(
            Int32(
                try String(contentsOf: directory.appendingPathComponent("run/litestream.pid"), encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(replicate, SIGKILL)
        let restarted = await eventually(timeout: .seconds(30)) {
            output.lines.contains { $0.hasPrefix("pinhole: replicate restarted (pid ") }
                && output.lines.filter { $0.contains("| pinhole: replicating 7 databases") }.count == 2
        }
        #expect(restarted, "\(output.lines.filter { $0.contains("pinhole:") }.joined(separator: "\n"))")
        // Only one Litestream replicates: the orphan either ended by itself (its output pipe
        // closed with its parent) or the new run stopped it ("stopping the Litestream ...").
        #expect(
            await eventually(timeout: .seconds(15)) { !Replicate.isAlive(leftover) }, "the old Litestream still runs")

        up.send(SIGINT)
        #expect(await up.waitForExit() == 0)
        #expect(output.lines.contains("pinhole: stopped"))
        let last = try? String(contentsOf: directory.appendingPathComponent("run/litestream.pid"), encoding: .utf8)
        #expect(last == nil, "run/litestream.pid outlived the stop")
    }
}
