import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

/// An application running in this process on a real port, until ``stop()``.
public struct RunningApplication: Sendable {
    let group: ServiceGroup
    let task: Task<Void, any Error>

    /// Starts `application`; it listens a moment later (a caller that calls it at once waits
    /// for that, as a dispatcher's retries or ``eventually(timeout:every:_:)`` do).
    public static func start(_ application: some ApplicationProtocol) async throws -> RunningApplication {
        let group = ServiceGroup(services: [application], logger: Logger.test("test"))
        let task = Task { try await group.run() }
        return RunningApplication(group: group, task: task)
    }

    /// Stops it gracefully and waits until it has.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held. The default is
/// generous: at the start of a full run every suite starts its servers on two cores at once.
public func eventually(
    timeout: Duration = .seconds(45), every interval: Duration = .milliseconds(50),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return false
}

/// Collects lines: a ``ServiceHTTP/ChildProcess``'s output, or failures found inside a test client.
public final class LineCollector: Sendable {
    private let storage = Mutex<[String]>([])

    public init() {}

    public func append(_ line: String) {
        storage.withLock { $0.append(line) }
    }

    public var lines: [String] { storage.withLock { $0 } }

    /// Replaces what was collected (for a reading taken again until it says what is expected).
    public func replace(with lines: [String]) {
        storage.withLock { $0 = lines }
    }
}
