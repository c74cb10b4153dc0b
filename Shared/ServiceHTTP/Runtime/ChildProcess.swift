import Foundation
import Synchronization

/// A running executable whose output arrives line by line: what `pinhole up` supervises,
/// what media runs ffmpeg with, and what the stack tests start, stop and kill.
///
/// It is started with `posix_spawn`, not Foundation's `Process`: on Linux, `Process.run()`
/// copies whole `dirent` records while listing `/proc/self/fd` and now and then reads past the
/// end of a mapped page (swift-corelibs-foundation PR 5472, not in Swift 6.3.1); the test
/// suite crashed there. The child gets what `Process` gave it: its own process group, no
/// descriptor of ours but its output pipe and `/dev/null` as input, default signal handling
/// and an empty signal mask.
public final class ChildProcess: Sendable {
    /// The name lines are tagged with.
    public let name: String
    /// The process id.
    public let pid: Int32
    private let exit = ExitState()

    /// How the child's threads are given a core.
    public enum Priority: Sendable, Equatable {
        /// As every other process (Linux's `SCHED_OTHER`).
        case normal
        /// Linux's `SCHED_IDLE`: on a core only while no other thread wants it, and taken off
        /// it as soon as one wakes (a nice value only weighs its share: a woken thread may
        /// still wait for it). Its threads pass the policy on to the threads they start.
        case idle
        /// As every other process in its share of the cores, but asking the scheduler for a
        /// long time slice (``yieldingSlice``; Linux 6.12's EEVDF custom slices): a thread with
        /// the default, shorter slice that wakes while it runs takes the core at once, where
        /// it would otherwise wait for the child's slice to end. Its threads pass the slice on
        /// to the threads they start. On a kernel without custom slices the child runs as
        /// `normal` does.
        case yielding
    }

    /// The time slice a ``Priority/yielding`` child asks for: well over the default slice
    /// (0.7–3 ms, by the number of cores) and within what the kernel takes (0.1–100 ms).
    static let yieldingSlice: UInt64 = 20_000_000

    /// `SCHED_IDLE`, which Swift's Glibc module leaves out (glibc declares it for GNU sources
    /// only).
    static let idlePolicy: Int32 = 5

    /// Starts `executable` with `arguments` and `environment`; every line it writes (stdout
    /// and stderr) is passed to `onLine`, and `onExit` is called once with its status: its
    /// exit code, or the number of the signal that ended it.
    public init(
        name: String, executable: URL, arguments: [String], environment: [String: String],
        priority: Priority = .normal, onLine: @escaping @Sendable (String) -> Void,
        onExit: @escaping @Sendable (Int32) -> Void = { _ in }
    ) throws {
        self.name = name
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ChildProcessError(name: name, errno: errno) }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        let spawned = Self.spawn(
            executable.path, arguments: [executable.path] + arguments,
            environment: environment.map { "\($0.key)=\($0.value)" }, priority: priority, output: writeEnd)
        close(writeEnd)
        guard spawned.code == 0 else {
            close(readEnd)
            throw ChildProcessError(name: name, errno: spawned.code)
        }
        let pid = spawned.pid
        self.pid = pid
        let splitter = LineSplitter(onLine: onLine)
        let exit = self.exit
        // A thread of its own reads the pipe with blocking reads until end-of-file. (A
        // dispatch source watching the descriptor was seen crashing libdispatch's event loop
        // with many children starting and exiting.)
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if count > 0 {
                    splitter.append(Data(buffer[0..<count]))
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(readEnd)
            splitter.flush()
            exit.outputClosed()
        }
        reader.name = "\(name) output"
        // And another waits for the exit, so a child that left a grandchild holding its output
        // open still reports its exit when it happens.
        let waiter = Thread {
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            let status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
            exit.exited(status)
            // Lines written before the exit are already in the pipe and arrive within
            // milliseconds; end-of-file itself can be late, if a grandchild holds the pipe.
            // Wait for it, but not for long, and keep a last line that had no newline.
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(500)) {
                splitter.flush()
                exit.outputClosed()
            }
            onExit(status)
        }
        waiter.name = "\(name) exit"
        reader.start()
        waiter.start()
    }

    /// Spawns `path` with its output and errors on `output`, in a process group of its own,
    /// scheduled as `priority` asks; answers its pid, or an error number other than 0.
    private static func spawn(
        _ path: String, arguments: [String], environment: [String], priority: Priority, output: Int32
    ) -> (pid: Int32, code: Int32) {
        guard priority != .normal else {
            return spawn(path, arguments: arguments, environment: environment, output: output)
        }
        // A child has the scheduling of the thread that spawns it, and glibc's spawn
        // attributes take neither `SCHED_IDLE` nor a slice; a thread that has `SCHED_IDLE`
        // cannot leave it without privilege. So a thread of its own takes them, spawns, and
        // ends.
        let spawned = Mutex<(pid: Int32, code: Int32)>((0, 0))
        let done = DispatchSemaphore(value: 0)
        let spawner = Thread {
            let result: (pid: Int32, code: Int32)
            switch priority {
            case .idle:
                var parameters = sched_param(sched_priority: 0)
                result =
                    sched_setscheduler(0, idlePolicy, &parameters) == 0
                    ? spawn(path, arguments: arguments, environment: environment, output: output) : (0, errno)
            case .yielding:
                // Where the slice cannot be had (a kernel before 6.12 has no custom slices; a
                // sandbox may refuse the call), the child runs as `normal`, whatever the call
                // answered.
                _ = requestSlice(yieldingSlice)
                result = spawn(path, arguments: arguments, environment: environment, output: output)
            case .normal:
                result = spawn(path, arguments: arguments, environment: environment, output: output)
            }
            spawned.withLock { $0 = result }
            done.signal()
        }
        spawner.name = "\(priority) spawner"
        spawner.start()
        done.wait()
        return spawned.withLock { $0 }
    }

    /// Spawns `path` from this thread, with this thread's scheduling.
    private static func spawn(
        _ path: String, arguments: [String], environment: [String], output: Int32
    ) -> (pid: Int32, code: Int32) {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        // Descriptors opened without close-on-exec (by us or a library) stay with us.
        if let closeFrom = closeFrom { _ = closeFrom(&actions, 3) }
        var noSignals = sigset_t()
        var allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        return (pid, code)
    }

    /// Asks the scheduler to give this thread (`SCHED_OTHER`) time slices of `nanoseconds`
    /// (`sched_setattr`'s `sched_runtime`); true when the call succeeded.
    private static func requestSlice(_ nanoseconds: UInt64) -> Bool {
        guard let syscall, let number = schedSetAttr else { return false }
        // `struct sched_attr` as the kernel reads it (its first version, 48 bytes, plus the
        // utilisation clamps: 56): size, policy, flags, nice, priority, runtime, deadline,
        // period, and two 32-bit clamps.
        var attributes = [UInt64](repeating: 0, count: 7)
        attributes.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: UInt32(bytes.count), toByteOffset: 0, as: UInt32.self)
            bytes.storeBytes(of: UInt32(SCHED_OTHER), toByteOffset: 4, as: UInt32.self)
            bytes.storeBytes(of: nanoseconds, toByteOffset: 24, as: UInt64.self)
        }
        return attributes.withUnsafeBytes { syscall(number, 0, $0.baseAddress!, 0) } == 0
    }

    /// `sched_setattr`'s system call number, which glibc before 2.41 has no function for.
    private static let schedSetAttr: Int? = {
        #if arch(x86_64)
        return 314
        #elseif arch(arm64)
        return 274
        #else
        return nil
        #endif
    }()

    /// glibc's `syscall`, called through a pointer with this call's arguments: Swift cannot
    /// call a variadic C function, and on Linux's x86-64 and arm64 calling conventions these
    /// integer and pointer arguments are passed alike either way.
    private typealias SystemCall = @convention(c) (Int, Int, UnsafeRawPointer, Int) -> Int
    private static let syscall: SystemCall? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syscall").map {
        unsafeBitCast($0, to: SystemCall.self)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's
    /// Glibc module does not declare.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: AddCloseFrom? = dlsym(
        UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np"
    ).map { unsafeBitCast($0, to: AddCloseFrom.self) }

    /// Whether it has not exited yet.
    public var isRunning: Bool { exit.status == nil }

    /// Sends `signal` (SIGTERM asks for a clean stop, SIGKILL stops at once).
    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
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

/// A child that could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let name: String
    public let errno: Int32
    public var description: String { "\(name) could not be started: \(String(cString: strerror(errno)))" }
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
