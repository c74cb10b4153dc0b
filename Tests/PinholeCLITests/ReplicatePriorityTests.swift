import Foundation
import ServiceHTTP
import Synchronization
import TestSupport
import Testing

@testable import PinholeCLI

/// `pinhole replicate` with `replication.priority` `idle` runs Litestream on idle cores, and at
/// normal priority (as `yield`, the default) when a commit waits for it: here a stand-in Litestream that records how it was scheduled and takes
/// nothing, beside a feed database whose WAL is newer than anything it took.
@Suite struct ReplicatePriorityTests {
    @Test func aLitestreamKeptFromTheCommitsIsRestartedAtNormalPriority() async throws {
        let directory = PinholeUpTests.temporaryDirectory("pinhole-replicate-priority")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("data")
        let feed = data.appendingPathComponent("feed/feed.sqlite")
        let taken = LitestreamPlan.localTransactionDirectory(of: feed)
        try FileManager.default.createDirectory(at: taken, withIntermediateDirectories: true)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: taken.path)
        try Data().write(to: URL(fileURLWithPath: feed.path + "-wal"))
        let standIn = directory.appendingPathComponent("litestream")
        try Data(
            """
            #!/bin/sh
            [ "$1" = replicate ] || exit 1
            trap 'exit 0' TERM
            echo $$ >> "$STARTED_RECORD"
            while :; do sleep 0.1; done

            """.utf8
        ).write(to: standIn)
        chmod(standIn.path, 0o700)

        var environment = ProcessInfo.processInfo.environment
        environment["REPLICATION_URL"] = "file://\(directory.appendingPathComponent("replica").path)"
        environment["REPLICATION_LITESTREAM"] = standIn.path
        environment["REPLICATION_PRIORITY"] = "idle"
        let started = directory.appendingPathComponent("started")
        environment["STARTED_RECORD"] = started.path
        environment["REPLICATION_METRICS_ADDRESS"] = "127.0.0.1:\(try FreePort.next())"
        let output = LineCollector()
        let replicate = try ChildProcess(
            name: "pinhole", executable: Stack.binaryDirectory().appendingPathComponent("pinhole"),
            arguments: ["replicate", "--data-dir", data.path], environment: environment, onLine: output.append)
        // Read from outside, in /proc: a stand-in on idle cores of a loaded machine may never run
        // to say its policy itself (and a CI run saw exactly that). A shell script, not Python:
        // its command line is the stand-in's as soon as the spawn returns (the kernel reads the
        // `#!` line), where `/usr/bin/env python3` and an interpreter's shim had to run on idle
        // cores first (a full run by hand saw the idle one never get that far).
        let seen = Mutex<[(pid: Int32, policy: String)]>([])
        let policies = {
            for (pid, policy) in Self.policies(ofProcessesRunning: standIn.path) {
                seen.withLock { seen in if !seen.contains(where: { $0.pid == pid }) { seen.append((pid, policy)) } }
            }
            return seen.withLock { $0.map(\.policy) }
        }
        let restarted = await eventually(timeout: .seconds(60), every: .milliseconds(20)) { policies().count >= 2 }
        #expect(restarted, "\(output.lines.suffix(20).joined(separator: "\n"))")
        // SCHED_IDLE first; then SCHED_OTHER, having said why.
        #expect(policies().prefix(2) == ["5", "0"])
        #expect(
            output.lines.contains {
                $0.hasPrefix("pinhole: Litestream has not taken feed's newest commit for over 1000 ms on idle cores")
            }, "\(output.lines.suffix(20).joined(separator: "\n"))")
        #expect(output.lines.contains { $0.hasSuffix(", on idle cores)") })
        // The rest is taken as the default has it: with the long slice (`ChildProcessTests`).
        #expect(output.lines.contains { $0.hasSuffix(", yielding the cores to the services' threads as they wake)") })

        // Stopped once the Litestream at normal priority is ready for the signal (found at once
        // in /proc, it may not have set its signal handler yet).
        let second = seen.withLock { $0.dropFirst().first?.pid }
        #expect(
            await eventually(timeout: .seconds(30)) {
                let pids = (try? String(contentsOf: started, encoding: .utf8))?.split(separator: "\n") ?? []
                return pids.contains { Int32($0) == second }
            })
        replicate.send(SIGTERM)
        let status = await replicate.waitForExit()
        #expect(status == 0, "\(output.lines.suffix(20).joined(separator: "\n"))")
        #expect(policies().count == 2, "nothing restarted it after the stop")
    }

    /// The scheduling policy (`/proc/<pid>/sched`'s, 0 normal, 5 idle) of each process whose
    /// command line is `<interpreter> path replicate …`: the stand-in itself, not the replica
    /// listings for the lag (`… path ltx …`), nor a copy the shell forked for a `sleep` and
    /// has not yet replaced by it (same command line, same policy, its parent a stand-in).
    static func policies(ofProcessesRunning path: String) -> [(pid: Int32, policy: String)] {
        let proc = URL(fileURLWithPath: "/proc")
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: proc.path))?.compactMap { Int32($0) } ?? []
        let found = pids.sorted().compactMap { pid -> (pid: Int32, parent: Int32, policy: String)? in
            let directory = proc.appendingPathComponent(String(pid))
            guard let command = try? Data(contentsOf: directory.appendingPathComponent("cmdline")),
                case let words = String(decoding: command, as: UTF8.self).split(separator: "\0"),
                words.count > 2, words[1] == path, words[2] == "replicate",
                let status = try? String(contentsOf: directory.appendingPathComponent("status"), encoding: .utf8),
                let parent = status.split(separator: "\n").first(where: { $0.hasPrefix("PPid:") })
                    .flatMap({ Int32($0.dropFirst(5).trimmingCharacters(in: .whitespaces)) }),
                let sched = try? String(contentsOf: directory.appendingPathComponent("sched"), encoding: .utf8),
                let line = sched.split(separator: "\n").first(where: { $0.hasPrefix("policy") }),
                let value = line.split(separator: ":").last
            else { return nil }
            return (pid, parent, value.trimmingCharacters(in: .whitespaces))
        }
        let standIns = Set(found.map(\.pid))
        return found.filter { !standIns.contains($0.parent) }.map { ($0.pid, $0.policy) }
    }

    /// A commit waits from when it was first seen after Litestream's last take, not from that
    /// take (a database quiet for an hour is not starved by its first new commit), until
    /// Litestream takes a transaction made after it (not merely a newer one than before).
    @Test func aCommitWaitsFromWhenItIsFirstSeen() throws {
        let directory = PinholeUpTests.temporaryDirectory("litestream-starvation")
        defer { try? FileManager.default.removeItem(at: directory) }
        let feed = directory.appendingPathComponent("feed/feed.sqlite")
        let wal = URL(fileURLWithPath: feed.path + "-wal")
        let taken = LitestreamPlan.localTransactionDirectory(of: feed)
        try FileManager.default.createDirectory(at: taken, withIntermediateDirectories: true)
        try Data().write(to: wal)
        let now = Date()
        func modify(_ file: URL, _ date: Date) throws {
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: file.path)
        }
        try modify(taken, now.addingTimeInterval(-3600))
        try modify(wal, now)
        let databases = [LitestreamPlan.Database(name: "feed", file: feed)]
        var starvation = LitestreamStarvation(limit: .seconds(1))
        let start = ContinuousClock.now
        #expect(starvation.starved(databases, now: start) == nil)
        #expect(starvation.starved(databases, now: start + .milliseconds(900)) == nil)
        #expect(starvation.starved(databases, now: start + .milliseconds(1100)) == "feed")

        // Taken: nothing waits. A commit after that waits anew, from when it is seen.
        try modify(taken, now.addingTimeInterval(1))
        #expect(starvation.starved(databases, now: start + .seconds(5)) == nil)
        try modify(wal, now.addingTimeInterval(2))
        #expect(starvation.starved(databases, now: start + .seconds(6)) == nil)
        #expect(starvation.starved(databases, now: start + .milliseconds(6900)) == nil)
        #expect(starvation.starved(databases, now: start + .milliseconds(7100)) == "feed")

        // A Litestream that takes now and then, but only what is older than the commit that
        // waits, is still behind it.
        try modify(taken, now.addingTimeInterval(1.5))
        #expect(starvation.starved(databases, now: start + .milliseconds(7200)) == "feed")

        // Litestream has taken nothing yet (its first snapshot): not judged.
        try FileManager.default.removeItem(at: taken)
        #expect(starvation.starved(databases, now: start + .seconds(60)) == nil)
    }
}
