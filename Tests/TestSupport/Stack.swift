import AsyncHTTPClient
import Foundation
import ServiceHTTP
import Synchronization

/// The seven real executables, started from the build folder on random loopback ports over a
/// temporary data directory, for stack tests.
public final class Stack: Sendable {
    public let directory: TestDataDirectory
    public let ports: [ServiceName: Int]
    public let gatewayURL: String
    /// Trusts the local authority, presents no certificate (a client of the gateway).
    public let client: HTTPClient
    /// Presents `pinhole`'s certificate (an internal caller other than the gateway).
    public let internalClient: HTTPClient
    private let binaries: URL
    private let environment: [String: String]
    private let processes = Mutex<[ServiceName: ChildProcess]>([:])
    private let output = Mutex<[ServiceName: [String]]>([:])

    /// Where the built executables are: `PINHOLE_BIN_DIR`, or next to the test bundle.
    public static func binaryDirectory() -> URL {
        if let configured = ProcessInfo.processInfo.environment["PINHOLE_BIN_DIR"] {
            return URL(fileURLWithPath: configured)
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// With `fakeClock`, the directory of the files each executable's clock reads its offset
    /// from (Debian's libfaketime, preloaded): the product has no time-travel route. One file per
    /// executable, because a process that starts with a non-zero offset never wakes from its
    /// timers (libfaketime 0.9 with Swift's Dispatch): a (re)launched one starts at `+0` and
    /// takes the stack's offset once it is ready.
    private let clockDirectory: URL?
    /// The offset, in seconds, ``moveClock(to:)`` last set.
    private let clockOffset = Mutex<Int>(0)
    /// Each executable's last answer to its readiness check, for the error when it never is.
    private let readiness = Mutex<[ServiceName: String]>([:])

    /// libfaketime's variant for threaded programs.
    static let libfaketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"

    private init(
        directory: TestDataDirectory, ports: [ServiceName: Int], publicTLS: Bool, fakeClock: Bool,
        environment extra: [String: String]
    ) throws {
        self.directory = directory
        self.ports = ports
        self.binaries = Self.binaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        for service in ServiceName.services {
            environment["SERVICES_\(service.rawValue.uppercased())_URL"] = "https://127.0.0.1:\(ports[service]!)"
        }
        environment["LOG_LEVEL"] = "info"
        // As in TestDataDirectory.reader: the stack runs while other suites load both cores.
        environment[ConfigKeys.environmentName("client.connectTimeoutMs")] = "5000"
        // Subscribers come back within seconds in these tests; do not wait a minute to retry.
        environment[ConfigKeys.environmentName("outbox.maxBackoffSeconds")] = "2"
        // Every test user signs up from 127.0.0.1: one address, many people.
        environment["RATELIMIT_AUTH_LIMIT"] = "1000"
        // Notice a rotated key, and a logout at the other services, within a second.
        environment[ConfigKeys.environmentName("auth.keysReloadSeconds")] = "1"
        environment[ConfigKeys.environmentName("token.sessionCheckSeconds")] = "1"
        // The stories snap at whatever hour the test runs: the daily snap windows are not
        // enforced (router tests cover them).
        environment[ConfigKeys.environmentName("streak.windows.enforced")] = "false"
        // Nothing leaves this machine: Expo (on by default, it needs no key) is off.
        environment[ConfigKeys.environmentName("alerts.expo.enabled")] = "false"
        if publicTLS {
            environment["PUBLIC_TLS_CERTIFICATE"] = directory.url.appendingPathComponent("pki/public.crt").path
            environment["PUBLIC_TLS_KEY"] = directory.url.appendingPathComponent("pki/public.key").path
        }
        if fakeClock {
            environment["LD_PRELOAD"] = Self.libfaketime
            // The wall clock moves; timers, timeouts and NIO's scheduling keep real time, file
            // times stay true, and each process reads the file at most once a second.
            environment["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
            environment["NO_FAKE_STAT"] = "1"
            environment["FAKETIME_CACHE_DURATION"] = "1"
            clockDirectory = directory.url
        } else {
            clockDirectory = nil
        }
        self.environment = environment.merging(extra) { $1 }
        self.gatewayURL = "\(publicTLS ? "https" : "http")://127.0.0.1:\(ports[.gateway]!)"
        self.client = try TestHTTP.client(dataDirectory: directory.url, identity: nil)
        self.internalClient = try TestHTTP.client(dataDirectory: directory.url, identity: .pinhole)
    }

    /// Starts all seven and waits until each is ready; `environment` adds to (or overrides)
    /// what every executable is given.
    /// With `fakeClock`, every executable runs under libfaketime and ``moveClock(to:)`` sets
    /// the wall clock they all read. With `directory`, the stack runs on that data directory
    /// (a restored one) instead of a new one.
    public static func start(
        publicTLS: Bool = true, fakeClock: Bool = false, environment: [String: String] = [:],
        directory existing: TestDataDirectory? = nil
    ) async throws -> Stack {
        let directory = try existing ?? TestDataDirectory.make()
        if publicTLS {
            try LocalAuthority(dataDirectory: directory.url).issueServerCertificate(
                hostNames: ["localhost"], certificateFile: directory.url.appendingPathComponent("pki/public.crt"),
                keyFile: directory.url.appendingPathComponent("pki/public.key"))
        }
        var ports: [ServiceName: Int] = [:]
        for name in ServiceName.executables { ports[name] = try FreePort.next() }
        if fakeClock, !FileManager.default.fileExists(atPath: libfaketime) {
            throw StackError("\(libfaketime) is missing: run ./scripts/setup (Debian's faketime)")
        }
        let stack = try Stack(
            directory: directory, ports: ports, publicTLS: publicTLS, fakeClock: fakeClock, environment: environment)
        for name in ServiceName.executables { try stack.launch(name) }
        for name in ServiceName.executables {
            guard await stack.waitUntilReady(name) else {
                await stack.stop()
                throw StackError(
                    "\(name.rawValue) did not become ready (its last answer: "
                        + "\(stack.readiness.withLock { $0[name] } ?? "none")):\n"
                        + stack.logs(of: name).suffix(20).joined(separator: "\n")
                )
            }
        }
        return stack
    }

    /// Runs `body` against this stack and stops it. When `body` throws, the last `lines` log
    /// lines of `names` (every executable by default) are printed first: a stack test's
    /// processes log into memory, and their lines reach the report only when it fails.
    public func run(
        printingOnFailure names: [ServiceName] = ServiceName.executables, lines: Int = 40,
        _ body: (Stack) async throws -> Void
    ) async throws {
        do {
            try await body(self)
        } catch {
            for name in names {
                print("---- \(name.rawValue)\n" + logs(of: name).suffix(lines).joined(separator: "\n"))
            }
            await stop()
            throw error
        }
        await stop()
    }

    /// The executables' wall clock: this machine's, moved as ``moveClock(to:)`` last set it.
    public var now: Date { Date().addingTimeInterval(TimeInterval(clockOffset.withLock { $0 })) }

    /// Sets every executable's wall clock to `date` (as it moves on from there) and waits until
    /// each running one's `Date` header says so. Only for a stack started with `fakeClock`; the
    /// clock of this process (and so of its TLS checks) stays real.
    public func moveClock(to date: Date) async throws {
        guard clockDirectory != nil else { throw StackError("this stack was started without a fake clock") }
        let offset = Int(date.timeIntervalSinceNow.rounded())
        clockOffset.withLock { $0 = offset }
        for name in ServiceName.executables { try writeClock(of: name, offset: offset) }
        let running = processes.withLock { $0.filter(\.value.isRunning).map(\.key) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for name in running { group.addTask { try await self.waitForClock(of: name, offset: offset) } }
            try await group.waitForAll()
        }
    }

    private func clockFile(of name: ServiceName) -> URL? {
        clockDirectory?.appendingPathComponent("faketime-\(name.rawValue)")
    }

    private func writeClock(of name: ServiceName, offset: Int) throws {
        guard let file = clockFile(of: name) else { return }
        try "\(offset >= 0 ? "+" : "")\(offset)\n".write(to: file, atomically: true, encoding: .utf8)
    }

    /// Waits until the executable's `Date` header is `offset` seconds from this machine's time.
    private func waitForClock(of name: ServiceName, offset: Int) async throws {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        let url = name == .gateway ? gatewayURL + "/health/live" : serviceURL(name) + "/health/live"
        let seen = Mutex<String?>(nil)
        var moved = false
        // Under a full test run's load a process has been seen to keep its old time for 15 s
        // (libfaketime re-reads the file only as the process asks for the time); the file is
        // written again before each further wait.
        for attempt in 0..<3 where !moved {
            if attempt > 0 { try writeClock(of: name, offset: offset) }
            moved = await eventually(timeout: .seconds(10), every: .milliseconds(200)) {
                // The header was written between the call and its answer, which on a loaded
                // machine can be seconds apart (a CI run saw a moved clock refused so).
                let sent = Date().addingTimeInterval(TimeInterval(offset))
                let header = try? await internalClient.call(.GET, url).header("date")
                let answered = Date().addingTimeInterval(TimeInterval(offset))
                seen.withLock { $0 = header }
                guard let header, let shown = format.date(from: header) else { return false }
                return shown > sent.addingTimeInterval(-5) && shown < answered.addingTimeInterval(5)
            }
        }
        guard moved else {
            let last = seen.withLock { $0 } ?? "no answer"
            throw StackError("\(name.rawValue)'s clock did not move \(offset) s (it said \(last))")
        }
    }

    /// Starts (or restarts) one executable.
    public func launch(_ name: ServiceName) throws {
        let executable = binaries.appendingPathComponent(name.rawValue)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw StackError("\(executable.path) is missing: build with `swift build --build-tests` first")
        }
        let arguments =
            ConfigKeys.flag("data.dir", directory.url.path) + ConfigKeys.flag("http.port", String(ports[name]!))
        // Under libfaketime a Swift program's `CommandLine.arguments` comes back empty, so the
        // same two settings also go by environment.
        var environment = environment
        environment[ConfigKeys.environmentName("data.dir")] = directory.url.path
        environment[ConfigKeys.environmentName("http.port")] = String(ports[name]!)
        if let file = clockFile(of: name) {
            try writeClock(of: name, offset: 0)
            environment["FAKETIME_TIMESTAMP_FILE"] = file.path
        }
        let child = try ChildProcess(
            name: name.rawValue, executable: executable, arguments: arguments, environment: environment,
            onLine: { [weak self] line in self?.output.withLock { $0[name, default: []].append(line) } })
        processes.withLock { $0[name] = child }
    }

    /// Runs `pinhole <arguments> --data-dir <this stack's>` with the stack's environment;
    /// returns its exit status and output.
    /// With `dataDirectory`, that one instead (a restore's target).
    public func pinhole(
        _ arguments: [String], dataDirectory: URL? = nil
    ) async throws -> (status: Int32, lines: [String]) {
        let output = LineCollector()
        // The CLI runs on real time: under a fake clock's preloaded libfaketime it saw no
        // arguments (it printed its help and exited 0).
        var environment = self.environment
        environment["LD_PRELOAD"] = nil
        let child = try ChildProcess(
            name: "pinhole", executable: binaries.appendingPathComponent("pinhole"),
            arguments: arguments + ["--data-dir", (dataDirectory ?? directory.url).path], environment: environment,
            onLine: output.append)
        let status = await child.waitForExit()
        return (status, output.lines)
    }

    /// Starts `pinhole <arguments> --data-dir <this stack's>` with the stack's environment and
    /// leaves it running (`pinhole replicate`); its output goes to `output`.
    public func startPinhole(_ arguments: [String], output: LineCollector) throws -> ChildProcess {
        var environment = self.environment
        environment["LD_PRELOAD"] = nil
        return try ChildProcess(
            name: "pinhole", executable: binaries.appendingPathComponent("pinhole"),
            arguments: arguments + ["--data-dir", directory.url.path], environment: environment,
            onLine: output.append)
    }

    /// The URL of a service's internal listener.
    public func serviceURL(_ name: ServiceName) -> String {
        "https://127.0.0.1:\(ports[name]!)"
    }

    /// Whether the executable answers its readiness check.
    public func isReady(_ name: ServiceName) async -> Bool {
        let url = name == .gateway ? gatewayURL + "/health/live" : serviceURL(name) + "/health/ready"
        do {
            let status = try await internalClient.call(.GET, url).status
            readiness.withLock { $0[name] = "HTTP \(status)" }
            return status == 200
        } catch {
            readiness.withLock { $0[name] = "\(error)" }
            return false
        }
    }

    /// Waits until the executable is ready; with `fakeClock`, it then takes the stack's clock.
    /// (90 s: a debug auth started beside a full parallel test run and a release build came up
    /// only 56 s after its launch, and two stack tests failed at 30 s; one that never comes up
    /// fails all the same.)
    public func waitUntilReady(_ name: ServiceName, timeout: Duration = .seconds(90)) async -> Bool {
        guard await eventually(timeout: timeout, every: .milliseconds(100), { await isReady(name) }) else {
            return false
        }
        let offset = clockOffset.withLock { $0 }
        guard clockDirectory != nil, offset != 0 else { return true }
        do {
            try writeClock(of: name, offset: offset)
            try await waitForClock(of: name, offset: offset)
            return true
        } catch {
            return false
        }
    }

    /// Kills an executable with SIGKILL: no chance to clean up.
    public func kill(_ name: ServiceName) async {
        let child = processes.withLock { $0[name] }
        child?.send(SIGKILL)
        await child?.waitForExit()
        if let child { removeClockLeftovers(of: child) }
    }

    /// libfaketime keeps a shared-memory segment and a semaphore per process in `/dev/shm` and
    /// removes them only as the process exits normally: after a SIGKILL they stay behind.
    private func removeClockLeftovers(of child: ChildProcess) {
        guard clockDirectory != nil else { return }
        for name in ["faketime_shm_\(child.pid)", "sem.faketime_sem_\(child.pid)"] {
            try? FileManager.default.removeItem(atPath: "/dev/shm/\(name)")
        }
    }

    /// The process id of a running executable (benchmarks read its memory in `/proc`).
    public func pid(of name: ServiceName) -> Int32? {
        processes.withLock { $0[name]?.pid }
    }

    /// Everything an executable printed.
    public func logs(of name: ServiceName) -> [String] {
        output.withLock { $0[name] ?? [] }
    }

    /// Stops everything and removes the data directory.
    public func stop() async {
        try? await client.shutdown()
        try? await internalClient.shutdown()
        let running = processes.withLock { Array($0.values) }
        await withTaskGroup(of: Void.self) { group in
            for child in running { group.addTask { await child.stop(grace: .seconds(10)) } }
        }
        for child in running { removeClockLeftovers(of: child) }
        directory.remove()
    }

    public func url(_ path: String) -> String { gatewayURL + path }
}

public struct StackError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
