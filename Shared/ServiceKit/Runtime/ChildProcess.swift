import Foundation
import Synchronization

/// A running executable whose output arrives line by line: what `pinhole up` supervises and
/// what the stack tests start, stop and kill.
public final class ChildProcess: Sendable {
    /// The name lines are tagged with.
    public let name: String
    private let process: Process
    private let exit = ExitState()

    /// Starts `executable` with `arguments` and `environment`; every line it writes (stdout
    /// and stderr) is passed to `onLine`, and `onExit` is called once with its status.
    public init(
        name: String, executable: URL, arguments: [String], environment: [String: String],
        onLine: @escaping @Sendable (String) -> Void, onExit: @escaping @Sendable (Int32) -> Void = { _ in }
    ) throws {
        self.name = name
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        self.process = process
        let splitter = LineSplitter(onLine: onLine)
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                splitter.flush()
            } else {
                splitter.append(data)
            }
        }
        let exit = self.exit
        process.terminationHandler = { process in
            exit.finish(process.terminationStatus)
            onExit(process.terminationStatus)
        }
        try process.run()
    }

    /// The process id.
    public var pid: Int32 { process.processIdentifier }

    /// Whether it has not exited yet.
    public var isRunning: Bool { exit.status == nil }

    /// Sends `signal` (SIGTERM asks for a clean stop, SIGKILL stops at once).
    public func send(_ signal: Int32) {
        if isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits for the process to exit and returns its status.
    @discardableResult
    public func waitForExit() async -> Int32 {
        await withCheckedContinuation { continuation in exit.wait(continuation) }
    }

    /// Asks for a clean stop, then kills it if it has not stopped within `grace`.
    public func stop(grace: Duration = .seconds(10)) async {
        send(SIGTERM)
        let stopped = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.waitForExit(); return true
            }
            group.addTask {
                try? await Task.sleep(for: grace); return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !stopped {
            send(SIGKILL)
            await waitForExit()
        }
    }
}

/// The exit status once known, and who is waiting for it.
private final class ExitState: Sendable {
    private let state = Mutex<(status: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))

    var status: Int32? { state.withLock { $0.status } }

    func finish(_ status: Int32) {
        let waiters = state.withLock { state in
            state.status = status
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: status) }
    }

    func wait(_ continuation: CheckedContinuation<Int32, Never>) {
        let done: Int32? = state.withLock { state in
            if let status = state.status { return status }
            state.waiters.append(continuation)
            return nil
        }
        if let done { continuation.resume(returning: done) }
    }
}

/// Splits a byte stream into lines.
private final class LineSplitter: Sendable {
    private let pending = Mutex<Data>(Data())
    private let onLine: @Sendable (String) -> Void

    init(onLine: @escaping @Sendable (String) -> Void) {
        self.onLine = onLine
    }

    func append(_ data: Data) {
        let lines: [String] = pending.withLock { pending in
            pending.append(data)
            var lines: [String] = []
            while let newline = pending.firstIndex(of: 0x0A) {
                lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending.removeSubrange(pending.startIndex...newline)
            }
            return lines
        }
        lines.forEach(onLine)
    }

    func flush() {
        let rest = pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        if !rest.isEmpty { onLine(String(decoding: rest, as: UTF8.self)) }
    }
}
