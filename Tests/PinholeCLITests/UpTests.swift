import Foundation
import ServiceHTTP
import TestSupport
import Testing

/// `pinhole up` and `pinhole status`, as an operator runs them.
@Suite(.serialized) struct PinholeUpTests {
    @Test func upStartsEverythingReportsHealthAndStopsCleanlyOnCtrlC() async throws {
        let directory = Self.temporaryDirectory("pinhole-up")
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try Self.environment()
        let gatewayPort = try FreePort.next()
        let binaries = Stack.binaryDirectory()
        let output = LineCollector()
        // Started as a login shell or a systemd unit starts it: with a soft limit of 1,024 open
        // files, far under the hard one.
        let up = try ChildProcess(
            name: "pinhole", executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: [
                "-c", "ulimit -Sn 1024 && exec \"$0\" \"$@\"", binaries.appendingPathComponent("pinhole").path,
                "up", "--data-dir", directory.path, "--gateway-port", "\(gatewayPort)",
            ],
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

        let status = try await Self.status(directory: directory, gatewayPort: gatewayPort, environment: environment)
        #expect(status.filter { $0.contains(" ready ") }.count == 7, "\(status)")
        // A container's probe: one service, over loopback, with that service's own certificate.
        let probe = try await Self.status(
            directory: directory, gatewayPort: gatewayPort, environment: environment, ["--only", "media"])
        #expect(probe == ["media /health/ready 200"])
        let liveProbe = try await Self.status(
            directory: directory, gatewayPort: gatewayPort, environment: environment, ["--only", "media", "--live"])
        #expect(liveProbe == ["media /health/live 200"])
        // On one machine the gateway's network I/O runs on half the cores' event loops: it shares
        // them with the services.
        let running = try Self.pids(in: directory)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(try Self.eventLoops(of: #require(running[.gateway])) == max(1, cores / 2))
        // Each raised its soft limit on open files to the hard one: a connection is a descriptor.
        for name in [ServiceName.gateway, .auth] {
            let limits = try Self.openFileLimits(of: #require(running[name]))
            #expect(limits.soft == limits.hard, "\(name.rawValue): \(limits)")
        }

        try await theReadmeWalkThroughWorks(gatewayPort: gatewayPort, dataDirectory: directory)

        // A service that dies is started again, and `status` counts the restart.
        let feed = try #require(try Self.pids(in: directory)[.feed])
        kill(feed, SIGKILL)
        let restarted = await eventually(timeout: .seconds(30)) {
            output.lines.contains { $0.hasPrefix("pinhole: feed restarted (pid ") }
        }
        #expect(restarted, "\(output.lines.suffix(20).joined(separator: "\n"))")
        #expect(output.lines.contains("pinhole: feed EXITED with status 9; restarting it in 1 s"))
        let afterRestart = LineCollector()
        let healthyAgain = await eventually(timeout: .seconds(30)) {
            let lines =
                (try? await Self.status(directory: directory, gatewayPort: gatewayPort, environment: environment))
            afterRestart.replace(with: lines ?? [])
            return lines?.first { $0.hasPrefix("feed ") }?.contains(" ready ") == true
        }
        let feedRow = afterRestart.lines.first { $0.hasPrefix("feed ") }?.split(separator: " ").map(String.init)
        #expect(healthyAgain, "\(afterRestart.lines)")
        // PROCESS PID HEALTH RESTARTS UPTIME VERSION URL
        #expect(feedRow?[2] == "ready" && feedRow?[3] == "1", "\(afterRestart.lines)")
        #expect(feedRow?[1] != String(feed))
        #expect(
            afterRestart.lines.dropFirst().allSatisfy { $0.contains(" \(PinholeRelease.version) ") },
            "\(afterRestart.lines)")

        // Children's pids, from the record `pinhole up` keeps for `status`.
        let pids = Array(try Self.pids(in: directory).values)
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

    /// A process that fails as soon as it is restarted is left stopped after `--give-up-after`
    /// quick failures; a stop waits out the grace for a process that ignores SIGTERM, and a
    /// second Ctrl-C ends that wait at once.
    @Test func aServiceThatKeepsFailingIsLeftStoppedAndASecondSignalStopsAtOnce() async throws {
        let directory = Self.temporaryDirectory("pinhole-up-failing")
        let binaries = Self.temporaryDirectory("pinhole-bin")
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: binaries)
        }
        let real = Stack.binaryDirectory()
        try FileManager.default.createDirectory(at: binaries, withIntermediateDirectories: true)
        let failing = binaries.appendingPathComponent("moderation-fails")
        let streakPID = binaries.appendingPathComponent("streak.pid")
        let wrappers = [
            // Moderation as built, until the marker file says it is to fail at start.
            ServiceName.moderation: """
            [ -e '\(failing.path)' ] && { echo "moderation: refusing to start"; exit 3; }
            exec '\(real.path)/moderation' "$@"
            """,
            // Streak under a parent that ignores SIGTERM and outlives it. (Streak itself closes
            // the descriptors it would inherit beyond the standard three: a grandchild holding
            // them keeps Foundation from seeing its parent's exit.)
            .streak: """
            (
              for fd in $(ls /proc/$BASHPID/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done
              exec '\(real.path)/streak' "$@"
            ) &
            echo $! > '\(streakPID.path)'
            trap '' TERM
            while true; do sleep 1; done
            """,
        ]
        for name in ServiceName.executables {
            let file = binaries.appendingPathComponent(name.rawValue)
            if let script = wrappers[name] {
                try ("#!/bin/bash\n" + script + "\n").write(to: file, atomically: true, encoding: .utf8)
                try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: file.path)
            } else {
                try FileManager.default.createSymbolicLink(
                    at: file, withDestinationURL: real.appendingPathComponent(name.rawValue))
            }
        }
        defer {
            if let pid = try? String(contentsOf: streakPID, encoding: .utf8),
                let pid = Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                kill(pid, SIGKILL)
            }
        }
        let environment = try Self.environment()
        let gatewayPort = try FreePort.next()
        let output = LineCollector()
        let up = try ChildProcess(
            name: "pinhole", executable: real.appendingPathComponent("pinhole"),
            arguments: [
                "up", "--data-dir", directory.path, "--gateway-port", "\(gatewayPort)", "--bin-dir", binaries.path,
                "--give-up-after", "2", "--stop-grace", "60",
            ],
            environment: environment, onLine: output.append)
        let ready = await eventually(timeout: .seconds(60)) {
            output.lines.contains("pinhole: gateway at http://127.0.0.1:\(gatewayPort)")
        }
        #expect(ready, "\(output.lines.suffix(30).joined(separator: "\n"))")

        _ = FileManager.default.createFile(atPath: failing.path, contents: Data())
        kill(try #require(try Self.pids(in: directory)[.moderation]), SIGKILL)
        let gaveUp = await eventually(timeout: .seconds(30)) {
            output.lines.contains {
                $0.hasPrefix("pinhole: moderation EXITED with status 3, its 2 quick failure(s) in a row; giving up")
            }
        }
        #expect(gaveUp, "\(output.lines.suffix(20).joined(separator: "\n"))")
        #expect(output.lines.contains("moderation | moderation: refusing to start"))
        let status = try await Self.status(directory: directory, gatewayPort: gatewayPort, environment: environment)
        let moderationRow = status.first { $0.hasPrefix("moderation ") } ?? ""
        #expect(moderationRow.contains(" given up "), "\(status)")
        let probe = try await Self.status(
            directory: directory, gatewayPort: gatewayPort, environment: environment, ["--only", "moderation"])
        #expect(probe.first?.hasPrefix("moderation /health/ready down: ") == true, "\(probe)")
        #expect(status.first { $0.hasPrefix("streak ") }?.contains(" ready ") == true, "\(status)")

        up.send(SIGINT)
        try await Task.sleep(for: .seconds(3))
        // The streak wrapper ignores SIGTERM: the stop waits for the grace (60 s)...
        #expect(up.isRunning, "\(output.lines.suffix(20).joined(separator: "\n"))")
        let secondSignal = ContinuousClock.now
        up.send(SIGINT)
        let stopped = await eventually(timeout: .seconds(15)) { !up.isRunning }
        // ...and a second signal ends it at once.
        #expect(stopped && ContinuousClock.now - secondSignal < .seconds(15))
        #expect(output.lines.contains("pinhole: received SIGINT again, killing every process now"))
        #expect(output.lines.contains("pinhole: stopped"))
    }

    static func temporaryDirectory(_ prefix: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
    }

    /// The test's environment with free ports for the six services.
    static func environment() throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for service in ServiceName.services {
            environment["SERVICES_\(service.rawValue.uppercased())_URL"] = "https://127.0.0.1:\(try FreePort.next())"
        }
        // As `./scripts/up` runs it: the walkthrough snaps at any hour.
        environment["STREAK_WINDOWS_ENFORCED"] = "false"
        return environment
    }

    /// The threads of NIO's shared event loop group in process `pid`.
    static func eventLoops(of pid: Int32) throws -> Int {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        return tasks.filter { task in
            let name = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)
            return name?.hasPrefix("NIO-SGLTN-") == true
        }.count
    }

    /// Process `pid`'s soft and hard limits on open files (`/proc/<pid>/limits`).
    static func openFileLimits(of pid: Int32) throws -> (soft: String, hard: String) {
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let columns = line.dropFirst("Max open files".count).split(separator: " ")
        return (String(columns[0]), String(columns[1]))
    }

    /// Each process's pid, from the record `pinhole up` keeps for `status`.
    static func pids(in directory: URL) throws -> [ServiceName: Int32] {
        let record =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: directory.appendingPathComponent("run/stack.json"))) as? [String: Any]
        var pids: [ServiceName: Int32] = [:]
        for entry in (record?["processes"] as? [[String: Any]]) ?? [] {
            if let name = (entry["name"] as? String).flatMap(ServiceName.init(rawValue:)),
                let pid = entry["pid"] as? Int32
            {
                pids[name] = pid
            }
        }
        return pids
    }

    /// What `pinhole status` prints.
    static func status(
        directory: URL, gatewayPort: Int, environment: [String: String], _ extra: [String] = []
    ) async throws -> [String] {
        let output = LineCollector()
        let status = try ChildProcess(
            name: "status", executable: Stack.binaryDirectory().appendingPathComponent("pinhole"),
            arguments: ["status", "--data-dir", directory.path, "--gateway-port", "\(gatewayPort)"] + extra,
            environment: environment, onLine: output.append)
        await status.waitForExit()
        return output.lines
    }

    /// Runs the README's walk-through and then the longer tour of docs/guides/walkthrough.md,
    /// each as pasted, against this stack, and checks that each step answered what the text
    /// says it does. (The README's people are not the tour's, so neither story disturbs the other.)
    func theReadmeWalkThroughWorks(gatewayPort: Int, dataDirectory: URL) async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let walkThrough =
            try #require(readme.components(separatedBy: "## Walk-through").dropFirst().first)
            .components(separatedBy: "\n## ").first ?? ""
        let short = try await run(
            Self.shellBlocks(of: walkThrough), expecting: 1, root: root, gatewayPort: gatewayPort,
            dataDirectory: dataDirectory)
        for expected in [
            #""displayName":"Maya""#, #""myVote":"up""#, #""score":1,"#, #""title":"New friend request""#,
            #""lastCompletedDate":"#, #""count":1"#, "AUTHENTICATION_REQUIRED", #""status":"ok""#,
            #""author":{"#, #""placeholder":""#, "200 image/jpeg", "Subject: Reset your Pinhole password",
        ] {
            #expect(short.contains(expected), "the README's walk-through printed no \(expected):\n\(short)")
        }
        #expect(short.contains("\n404"), "the blocked author's post was not hidden:\n\(short)")
        #expect(short.contains("\n204"), "the mailed reset link did not set a new password:\n\(short)")

        let tour = try String(
            contentsOf: root.appendingPathComponent("docs/guides/walkthrough.md"), encoding: .utf8)
        let text = try await run(
            Self.shellBlocks(of: tour), expecting: 2, root: root, gatewayPort: gatewayPort, dataDirectory: dataDirectory
        )
        for expected in [
            #""accessToken":"#, #""displayName":"Alice""#, #""contentType":"image/jpeg""#, "UNSUPPORTED_MEDIA_TYPE",
            #""myVote":"up""#, #""score":1,"#, #""title":"New friend request""#, #""count":1"#,
            #""lastCompletedDate":"#,
            #""reason":"spam""#, #""userId":"#, #""friendState":"revealed""#, #""method":"GET""#,
            #""displayName":"Bob","streak":"#, #""days":[0,0,0,0,0,0,3]"#, #""custom":false"#,
            #""enforced":false"#, #""totalSnaps":1"#, #""next":7"#, "200 image/jpeg",
        ] {
            #expect(text.contains(expected), "the tour printed no \(expected):\n\(text)")
        }
        let lines = text.components(separatedBy: "\n")
        #expect(lines.contains("404"), "the reported post was not hidden:\n\(text)")
        #expect(lines.contains("204"), "Bob was not nudged:\n\(text)")
        #expect(text.contains("200 image/png"), "the share card did not download:\n\(text)")
    }

    /// The `sh` code blocks of a Markdown text.
    static func shellBlocks(of markdown: String) -> [String] {
        markdown.components(separatedBy: "```sh\n").dropFirst().map { $0.components(separatedBy: "```").first ?? "" }
    }

    /// Runs `blocks` (there must be `count`) in one bash from the repository root, the gateway
    /// URL and the data directory pointed at this stack; answers what they printed.
    func run(
        _ blocks: [String], expecting count: Int, root: URL, gatewayPort: Int, dataDirectory: URL
    ) async throws -> String {
        #expect(blocks.count == count)
        let script =
            "cd '\(root.path)'\n"
            + blocks.joined(separator: "\n").replacingOccurrences(
                of: "G=http://127.0.0.1:8080", with: "G=http://127.0.0.1:\(gatewayPort)"
            ).replacingOccurrences(of: "--data-dir .pinhole", with: "--data-dir '\(dataDirectory.path)'")
        let output = LineCollector()
        let bash = try ChildProcess(
            name: "walk-through", executable: URL(fileURLWithPath: "/bin/bash"), arguments: ["-c", script],
            environment: ProcessInfo.processInfo.environment, onLine: output.append)
        await bash.waitForExit()
        return output.lines.joined(separator: "\n")
    }
}
