import Foundation
import ServiceHTTP
import TestSupport
import Testing

@testable import PinholeCLI

/// `pinhole replicate` with `replication.priority` `idle` runs Litestream on idle cores, and at
/// normal priority when a commit waits for it: here a stand-in Litestream that records how it was scheduled and takes
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
        let record = directory.appendingPathComponent("policies")
        let standIn = directory.appendingPathComponent("litestream")
        try Data(
            """
            #!/usr/bin/env python3
            import os, signal, sys, time
            if sys.argv[1] != "replicate": sys.exit(1)
            with open(os.environ["POLICY_RECORD"], "a") as f: print(os.sched_getscheduler(0), file=f)
            signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
            while True: time.sleep(0.1)

            """.utf8
        ).write(to: standIn)
        chmod(standIn.path, 0o700)

        var environment = ProcessInfo.processInfo.environment
        environment["REPLICATION_URL"] = "file://\(directory.appendingPathComponent("replica").path)"
        environment["REPLICATION_LITESTREAM"] = standIn.path
        environment["REPLICATION_PRIORITY"] = "idle"
        environment["REPLICATION_METRICS_ADDRESS"] = "127.0.0.1:\(try FreePort.next())"
        environment["POLICY_RECORD"] = record.path
        let output = LineCollector()
        let replicate = try ChildProcess(
            name: "pinhole", executable: Stack.binaryDirectory().appendingPathComponent("pinhole"),
            arguments: ["replicate", "--data-dir", data.path], environment: environment, onLine: output.append)
        let policies = { (try? String(contentsOf: record, encoding: .utf8))?.split(separator: "\n") ?? [] }
        let restarted = await eventually(timeout: .seconds(60)) { policies().count >= 2 }
        #expect(restarted, "\(output.lines.suffix(20).joined(separator: "\n"))")
        // SCHED_IDLE first; then SCHED_OTHER, having said why.
        #expect(policies().prefix(2) == ["5", "0"])
        #expect(
            output.lines.contains {
                $0.hasPrefix("pinhole: Litestream has not taken feed's newest commit for over 1000 ms on idle cores")
            }, "\(output.lines.suffix(20).joined(separator: "\n"))")
        #expect(output.lines.contains { $0.hasSuffix(", on idle cores)") })

        replicate.send(SIGTERM)
        #expect(await replicate.waitForExit() == 0)
        #expect(policies().count == 2, "nothing restarted it after the stop")
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
