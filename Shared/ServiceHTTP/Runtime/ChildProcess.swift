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
        let exit = self.exit
        // A thread of its own reads the pipe with blocking reads until end-of-file. (Foundation's
        // `readabilityHandler` watches the descriptor with a dispatch source; with many children
        // starting and exiting, libdispatch's event loop was seen crashing on a bad pointer,
        // which a descriptor closed and reused under a source still registered would explain.)
        let reader = output.fileHandleForReading
        let thread = Thread {
            let descriptor = reader.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    splitter.append(Data(buffer[0..<count]))
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            try? reader.close()
            splitter.flush()
            exit.outputClosed()
        }
        thread.name = "\(name) output"
        process.terminationHandler = { process in
            exit.exited(process.terminationStatus)
            // Lines written before the exit are already in the pipe and arrive within
            // milliseconds; end-of-file itself can be late, because other children started
            // meanwhile may have inherited the pipe. Wait for it, but not for long, and keep a
            // last line that had no newline.
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(500)) {
                splitter.flush()
                exit.outputClosed()
            }
            onExit(process.terminationStatus)
        }
        try process.run()
        thread.start()
    }

    /// The process id.
    public var pid: Int32 { process.processIdentifier }

    /// Whether it has not exited yet.
    public var isRunning: Bool { exit.status == nil }

    /// Sends `signal` (SIGTERM asks for a clean stop, SIGKILL stops at once).
    public func send(_ signal: Int32) {
        if isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits for the process to exit and for its last output line to be delivered, and
    /// returns its status.
    @discardableResult
    public func waitForExit() async -> Int32 {
        await withCheckedContinuation { continuation in exit.wait(continuation) }
    }

    /// Asks for a clean stop, then kills it if it has not stopped within `grace`. (The kill
    /// is a timer beside the wait, not a race in a task group: a group waits for all its
    /// children, and waiting for an exit cannot be cancelled, so a child that ignored SIGTERM
    /// held such a stop forever.)
    public func stop(grace: Duration = .seconds(10)) async {
        send(SIGTERM)
        let killer = Task {
            try? await Task.sleep(for: grace)
            if !Task.isCancelled { self.send(SIGKILL) }
        }
        await waitForExit()
        killer.cancel()
    }
}

/// The exit status once known, whether all output was read, and who is waiting for both.
private final class ExitState: Sendable {
    private struct State {
        var status: Int32?
        var outputClosed = false
        var waiters: [CheckedContinuation<Int32, Never>] = []
        var done: Int32? { outputClosed ? status : nil }
    }

    private let state = Mutex(State())

    /// Known as soon as the process has exited (its output may still be arriving).
    var status: Int32? { state.withLock { $0.status } }

    func exited(_ status: Int32) {
        update { $0.status = status }
    }

    func outputClosed() {
        update { $0.outputClosed = true }
    }

    private func update(_ change: (inout State) -> Void) {
        let (waiters, status): ([CheckedContinuation<Int32, Never>], Int32?) = state.withLock { state in
            change(&state)
            guard let done = state.done else { return ([], nil) }
            defer { state.waiters.removeAll() }
            return (state.waiters, done)
        }
        if let status { for waiter in waiters { waiter.resume(returning: status) } }
    }

    func wait(_ continuation: CheckedContinuation<Int32, Never>) {
        let done: Int32? = state.withLock { state in
            if let done = state.done { return done }
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
