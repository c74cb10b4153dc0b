import Foundation
import ServiceKit
import TestSupport
import Testing

/// `pinhole up` and `pinhole status`, as an operator runs them.
@Suite(.serialized) struct PinholeUpTests {
    @Test func upStartsEverythingReportsHealthAndStopsCleanlyOnCtrlC() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pinhole-up-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        var environment = ProcessInfo.processInfo.environment
        for service in ServiceName.services {
            environment["SERVICES_\(service.rawValue.uppercased())_URL"] = "https://127.0.0.1:\(try FreePort.next())"
        }
        let gatewayPort = try FreePort.next()
        let binaries = Stack.binaryDirectory()
        let output = LineCollector()
        let up = try ChildProcess(
            name: "pinhole", executable: binaries.appendingPathComponent("pinhole"),
            arguments: ["up", "--data-dir", directory.path, "--gateway-port", "\(gatewayPort)"],
            environment: environment, onLine: output.append)

        let ready = await eventually(timeout: .seconds(60)) {
            output.lines.contains("pinhole: gateway at http://127.0.0.1:\(gatewayPort)")
        }
        #expect(ready, "\(output.lines.suffix(30).joined(separator: "\n"))")
        // Every process logs with its own prefix.
        for name in ServiceName.executables {
            let prefix = name.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0) + " | "
            #expect(output.lines.contains { $0.hasPrefix(prefix) }, "no lines from \(name.rawValue)")
        }
        // Keys and certificates were made, readable by the owner only.
        #expect(try FileSystem.permissions(of: directory.appendingPathComponent("pki/ca.key")) == 0o600)
        let keys = try FileManager.default.contentsOfDirectory(
            atPath: directory.appendingPathComponent("auth/keys").path)
        #expect(keys.count == 1)

        let statusOutput = LineCollector()
        let status = try ChildProcess(
            name: "status", executable: binaries.appendingPathComponent("pinhole"),
            arguments: ["status", "--data-dir", directory.path, "--gateway-port", "\(gatewayPort)"],
            environment: environment, onLine: statusOutput.append)
        #expect(await status.waitForExit() == 0)
        #expect(statusOutput.lines.filter { $0.contains(" ready ") }.count == 7, "\(statusOutput.lines)")

        // Children's pids, from the record `pinhole up` keeps for `status`.
        let record =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: directory.appendingPathComponent("run/stack.json"))) as? [String: Any]
        let pids = ((record?["processes"] as? [[String: Any]]) ?? []).compactMap { $0["pid"] as? Int32 }
        #expect(pids.count == 7)

        up.send(SIGINT)
        let exited = await eventually(timeout: .seconds(30)) { !up.isRunning }
        #expect(exited)
        #expect(await up.waitForExit() == 0)
        #expect(output.lines.contains("pinhole: stopped"))
        for pid in pids {
            #expect(kill(pid, 0) != 0, "process \(pid) is still running")
        }
    }
}
