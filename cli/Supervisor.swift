import Foundation
import ServiceHTTP
import Synchronization

/// What `pinhole up` does when a process of a started stack exits on its own: it starts it
/// again after a wait that doubles with each quick failure in a row, and leaves it stopped
/// after `giveUpAfter` of them.
struct RestartPolicy: Sendable {
    /// After this many quick failures in a row the process is left stopped; 0 never restarts.
    var giveUpAfter: Int
    /// The wait before restarting after a run that was not quick, or after the first quick one.
    var firstDelay: Duration = .seconds(1)
    var longestDelay: Duration = .seconds(30)
    /// A run shorter than this is a quick failure.
    var quickRun: Duration = .seconds(30)

    /// The wait before a restart, given the quick failures in a row so far (this one included).
    func delay(quickFailures: Int) -> Duration {
        var delay = firstDelay
        for _ in 1..<max(quickFailures, 1) { delay = min(delay * 2, longestDelay) }
        return delay
    }
}

/// Starts children, prefixes their output, restarts the ones that exit, keeps the stack record
/// `pinhole status` reads, and stops them all on request.
final class Supervisor: Sendable {
    enum Outcome: Sendable {
        case signal(String)
        case aborted(String)
        case unhealthy
    }

    /// How to start one process: kept for its restarts.
    struct Launch: Sendable {
        /// An executable's name, or `replicate`.
        var name: String
        var executable: URL
        var arguments: [String]
        var environment: [String: String]
        var url: String
    }

    private struct Slot {
        var launch: Launch
        var child: ChildProcess
        var startedAt = Date()
        var started = ContinuousClock.now
        var restarts = 0
        var quickFailures = 0
        var state = StackRecord.State.running
    }

    /// The name of `pinhole replicate`'s process.
    static let replication = "replicate"

    private let abortOnExit: Bool
    private let policy: RestartPolicy
    private let recordFile: URL
    private let gatewayURL: String
    private let slots = Mutex<[Slot]>([])
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let stopRequests: AsyncStream<Outcome>
    private let stopContinuation: AsyncStream<Outcome>.Continuation
    private static let output = Mutex<Void>(())

    init(abortOnExit: Bool, policy: RestartPolicy, recordFile: URL, gatewayURL: String) {
        self.abortOnExit = abortOnExit
        self.policy = policy
        self.recordFile = recordFile
        self.gatewayURL = gatewayURL
        (stopRequests, stopContinuation) = AsyncStream.makeStream(of: Outcome.self)
    }

    /// Starts a process for the first time.
    func start(_ launch: Launch) throws {
        let child = try makeChild(launch)
        slots.withLock { $0.append(Slot(launch: launch, child: child)) }
        try writeRecord()
    }

    private func makeChild(_ launch: Launch) throws -> ChildProcess {
        let name = launch.name
        let prefix = name.padding(toLength: 10, withPad: " ", startingAt: 0) + " | "
        return try ChildProcess(
            name: name, executable: launch.executable, arguments: launch.arguments,
            environment: launch.environment, onLine: { line in Self.write(prefix + line) },
            onExit: { [weak self] status in self?.exited(name, status: status) })
    }

    private func exited(_ name: String, status: Int32) {
        guard !stopping.load(ordering: .relaxed) else { return }
        // A stack that cannot start is not left half-started.
        guard isStarted, !abortOnExit else {
            announce("\(name) EXITED with status \(status) (see its log lines above)")
            stopContinuation.yield(.aborted(name))
            return
        }
        let policy = policy
        let plan = slots.withLock { slots -> (quickFailures: Int, delay: Duration?)? in
            guard let index = slots.firstIndex(where: { $0.launch.name == name }) else { return nil }
            let quick = ContinuousClock.now - slots[index].started < policy.quickRun
            slots[index].quickFailures = quick ? slots[index].quickFailures + 1 : 0
            let failures = slots[index].quickFailures
            let givesUp = failures >= policy.giveUpAfter
            slots[index].state = givesUp ? .givenUp : .restarting
            return (failures, givesUp ? nil : policy.delay(quickFailures: failures))
        }
        guard let plan else { return }
        try? writeRecord()
        guard let delay = plan.delay else {
            announce(
                policy.giveUpAfter == 0
                    ? "\(name) EXITED with status \(status); restarts are off, it stays stopped"
                    : "\(name) EXITED with status \(status), its \(plan.quickFailures) quick failure(s) in a row; "
                        + "giving up, it stays stopped (see its log lines above)")
            return
        }
        announce("\(name) EXITED with status \(status); restarting it in \(delay.seconds) s")
        Task {
            try? await Task.sleep(for: delay)
            self.restart(name)
        }
    }

    private func restart(_ name: String) {
        let outcome = slots.withLock { slots -> Result<Int32, any Error>? in
            guard !stopping.load(ordering: .relaxed),
                let index = slots.firstIndex(where: { $0.launch.name == name })
            else { return nil }
            do {
                slots[index].child = try makeChild(slots[index].launch)
                slots[index].restarts += 1
                slots[index].startedAt = Date()
                slots[index].started = .now
                slots[index].state = .running
                return .success(slots[index].child.pid)
            } catch {
                slots[index].state = .givenUp
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let pid): announce("\(name) restarted (pid \(pid))")
        case .failure(let error): announce("\(name) could not be restarted, it stays stopped: \(error)")
        case nil: return
        }
        try? writeRecord()
    }

    /// Every process became healthy once: from now on an exit is a restart, not an abort.
    func markStarted() {
        started.store(true, ordering: .relaxed)
    }

    var isStarted: Bool { started.load(ordering: .relaxed) }

    /// Asks `pinhole up` to stop the stack (a signal, or a start that did not finish).
    func requestStop(_ outcome: Outcome) {
        stopContinuation.yield(outcome)
    }

    /// The first reason to stop.
    func nextStopRequest() async -> Outcome {
        for await outcome in stopRequests { return outcome }
        return .signal("the end of stop requests")
    }

    /// Stops every running process within `grace` of now: the gateway first, so that no new
    /// request reaches a service that is stopping, then the services together, then replication. What has not
    /// stopped when the grace is over is killed. One that does not end its clean stop with
    /// status 0 (it failed on the way out, or had to be killed) is reported.
    func stopAll(grace: Duration) async {
        stopping.store(true, ordering: .relaxed)
        let running = slots.withLock { $0.map(\.child).filter(\.isRunning) }
        let deadline = ContinuousClock.now + grace
        let remaining = { @Sendable in max(deadline - ContinuousClock.now, .zero) }
        for child in running where child.name == ServiceName.gateway.rawValue {
            await child.stop(grace: remaining())
        }
        await withTaskGroup(of: Void.self) { group in
            for child in running where ![ServiceName.gateway.rawValue, Self.replication].contains(child.name) {
                group.addTask { await child.stop(grace: remaining()) }
            }
        }
        // Replication last, so that it ships the services' last commits.
        for child in running where child.name == Self.replication {
            await child.stop(grace: remaining())
        }
        for child in running {
            let status = await child.waitForExit()
            if status != 0 { announce("\(child.name) stopped with status \(status)") }
        }
    }

    /// Kills every process at once: the answer to a second Ctrl-C or SIGTERM.
    func killAll() {
        stopping.store(true, ordering: .relaxed)
        for child in slots.withLock({ $0.map(\.child) }) { child.send(SIGKILL) }
    }

    /// Writes where each process is, since when, and how often it was restarted.
    /// (Read and written under the lock, so that two changes close together land in order.)
    private func writeRecord() throws {
        try slots.withLock { slots in
            let record = StackRecord(
                gatewayURL: gatewayURL,
                processes: slots.map {
                    .init(
                        name: $0.launch.name, pid: $0.child.pid, url: $0.launch.url, startedAt: $0.startedAt,
                        restarts: $0.restarts, state: $0.state)
                })
            try FileSystem.writeOwnerOnly(JSONEncoder().encode(record), to: recordFile)
        }
    }

    func announce(_ message: String) {
        Self.write("pinhole: \(message)")
    }

    /// Writes one line to standard output at once (unbuffered), so that announcements and the
    /// prefixed log lines of children interleave in the order they happen.
    static func write(_ line: String) {
        output.withLock { _ in
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
    }
}

extension Duration {
    /// Whole seconds, for messages.
    fileprivate var seconds: Int64 { components.seconds }
}
