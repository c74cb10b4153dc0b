import Foundation
import Synchronization
import Testing

@testable import ServiceKit

/// What `pinhole up` and the stack tests rely on to stop their children.
@Suite struct ChildProcessTests {
    /// What a child wrote, line by line.
    final class Lines: Sendable {
        let seen = Mutex<[String]>([])
    }

    /// A Python child that sets SIGTERM to `disposition` (`SIG_IGN` or `SIG_DFL`) and unblocks
    /// it (whatever this test process passed down), says it is ready, and sleeps.
    func sleeper(_ disposition: String, lines: Lines) throws -> ChildProcess {
        let script =
            "import signal, time; signal.signal(signal.SIGTERM, signal.\(disposition)); "
            + "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM}); "
            + "print('ready', flush=True); time.sleep(60)"
        return try ChildProcess(
            name: "sleeper", executable: URL(fileURLWithPath: "/usr/bin/env"), arguments: ["python3", "-c", script],
            environment: ProcessInfo.processInfo.environment,
            onLine: { line in lines.seen.withLock { $0.append(line) } })
    }

    func ready(_ lines: Lines) async throws {
        for _ in 0..<250 where lines.seen.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(20)) }
        #expect(lines.seen.withLock { $0 } == ["ready"])
    }

    /// A child that ignores SIGTERM is killed once the grace is over: the stop ends within the
    /// grace and a second (issue 23 saw `pinhole up` wait forever for such a gateway).
    @Test func aChildThatIgnoresSIGTERMIsKilledAfterTheGrace() async throws {
        let lines = Lines()
        let child = try sleeper("SIG_IGN", lines: lines)
        try await ready(lines)
        let started = ContinuousClock.now
        await child.stop(grace: .seconds(2))
        let took = ContinuousClock.now - started
        #expect(!child.isRunning)
        #expect(took >= .seconds(2) && took < .seconds(3), "stop took \(took)")
        #expect(await child.waitForExit() == SIGKILL)
    }

    /// A child that stops on SIGTERM is not made to wait for the grace.
    @Test func aChildThatStopsOnSIGTERMStopsAtOnce() async throws {
        let lines = Lines()
        let child = try sleeper("SIG_DFL", lines: lines)
        try await ready(lines)
        let started = ContinuousClock.now
        await child.stop(grace: .seconds(30))
        #expect(!child.isRunning)
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(await child.waitForExit() == SIGTERM)
    }
}
