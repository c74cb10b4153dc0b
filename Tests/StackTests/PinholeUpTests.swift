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
        // As `./scripts/up` runs it: the walkthrough snaps at any hour.
        environment["STREAK_WINDOWS_ENFORCED"] = "false"
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

        try await theReadmeWalkThroughWorks(gatewayPort: gatewayPort)

        // Children's pids, from the record `pinhole up` keeps for `status`.
        let record =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: directory.appendingPathComponent("run/stack.json"))) as? [String: Any]
        let pids = ((record?["processes"] as? [[String: Any]]) ?? []).compactMap { $0["pid"] as? Int32 }
        #expect(pids.count == 7)

        let linesBeforeStop = output.lines.count
        up.send(SIGINT)
        let exited = await eventually(timeout: .seconds(30)) { !up.isRunning }
        #expect(exited)
        #expect(await up.waitForExit() == 0)
        #expect(output.lines.contains("pinhole: stopped"))
        // A normal stop reads as one: every process ends with status 0 and nothing is logged
        // as an error on the way out (a cancelled worker is not a failure).
        let stopping = output.lines.dropFirst(linesBeforeStop)
        let alarming = stopping.filter {
            $0.contains(" error ") || $0.contains(" critical ") || $0.contains("stopped with status")
                || $0.contains("failed")
        }
        #expect(alarming.isEmpty, "\(alarming.joined(separator: "\n"))")
        for pid in pids {
            #expect(kill(pid, 0) != 0, "process \(pid) is still running")
        }
    }

    /// Runs the shell blocks of the README's walk-through, as pasted, against this stack, and
    /// checks that each step answered what the README says it does.
    func theReadmeWalkThroughWorks(gatewayPort: Int) async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let section =
            try #require(readme.components(separatedBy: "## Walk-through").dropFirst().first)
            .components(separatedBy: "\n## ").first ?? ""
        let blocks = section.components(separatedBy: "```sh\n").dropFirst().map {
            $0.components(separatedBy: "```").first ?? ""
        }
        #expect(blocks.count == 2)
        let script =
            "cd '\(root.path)'\n"
            + blocks.joined(separator: "\n").replacingOccurrences(
                of: "G=http://127.0.0.1:8080", with: "G=http://127.0.0.1:\(gatewayPort)")
        let output = LineCollector()
        let bash = try ChildProcess(
            name: "walk-through", executable: URL(fileURLWithPath: "/bin/bash"), arguments: ["-c", script],
            environment: ProcessInfo.processInfo.environment, onLine: output.append)
        await bash.waitForExit()
        let text = output.lines.joined(separator: "\n")
        for expected in [
            #""accessToken":"#, #""displayName":"Alice""#, #""contentType":"image/jpeg""#, "UNSUPPORTED_MEDIA_TYPE",
            #""myVote":"up""#, #""score":1,"#, #""title":"New friend request""#, #""count":1"#,
            #""lastCompletedDate":"#,
            #""reason":"spam""#, #""userId":"#, #""friendState":"revealed""#, #""method":"GET""#,
            #""displayName":"Bob","streak":"#, #""days":[0,0,0,0,0,0,3]"#, #""custom":false"#,
            #""enforced":false"#, #""totalSnaps":1"#, #""next":7"#,
        ] {
            #expect(text.contains(expected), "the walk-through printed no \(expected):\n\(text)")
        }
        #expect(output.lines.contains("404"), "the reported post was not hidden:\n\(text)")
        #expect(output.lines.contains("204"), "Bob was not nudged:\n\(text)")
        #expect(text.contains("200 image/png"), "the share card did not download:\n\(text)")
    }
}
