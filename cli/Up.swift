import ArgumentParser
import Foundation
import ServiceKit
import Synchronization
import UnixSignals

struct Up: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start all seven processes, wait until each is healthy, and stop them all on Ctrl-C.",
        discussion: """
            Runs the executables already built next to `pinhole` (or in --bin-dir); it builds nothing.
            Each log line is prefixed with its process. A process that exits is reported and not \
            restarted; with --abort-on-exit the whole stack stops instead.
            """)

    @OptionGroup var options: StackOptions

    @Option(help: "Directory holding the built executables. Default: the directory of this pinhole binary.")
    var binDir: String?

    @Flag(help: "Serve the gateway over TLS with a certificate for localhost from the local authority.")
    var tls = false

    @Flag(help: "Stop the whole stack when any process exits.")
    var abortOnExit = false

    @Option(help: "Seconds to wait for every process to become healthy.")
    var startTimeout: Int = 60

    func run() async throws {
        let settings = try await options.settings()
        for note in try prepareDataDirectory(settings) { say("pinhole: \(note)") }
        say("pinhole: data directory \(settings.dataDirectory.path)")
        let binaries = URL(fileURLWithPath: binDir ?? Bundle.main.executableURL!.deletingLastPathComponent().path)
        for name in ServiceName.executables
        where !FileManager.default.isExecutableFile(atPath: binaries.appendingPathComponent(name.rawValue).path) {
            say("pinhole: \(binaries.path)/\(name.rawValue) is missing: build first (swift build), or pass --bin-dir")
            throw ExitCode(1)
        }

        var gatewayArguments: [String] = []
        var scheme = "http"
        if tls {
            let pki = settings.dataDirectory.appendingPathComponent("pki")
            let certificate = pki.appendingPathComponent("public.crt")
            let key = pki.appendingPathComponent("public.key")
            if !FileManager.default.fileExists(atPath: certificate.path) {
                try LocalAuthority(dataDirectory: settings.dataDirectory).issueServerCertificate(
                    hostNames: ["localhost", options.host], certificateFile: certificate, keyFile: key)
            }
            gatewayArguments += ConfigKeys.flag("public.tls.certificate", certificate.path)
            gatewayArguments += ConfigKeys.flag("public.tls.key", key.path)
            scheme = "https"
        }
        let gatewayURL = "\(scheme)://\(options.host):\(options.gatewayPort)"
        let supervisor = Supervisor(abortOnExit: abortOnExit)
        var environment = ProcessInfo.processInfo.environment
        for service in ServiceName.services {
            environment["SERVICES_\(service.rawValue.uppercased())_URL"] = settings.url(of: service).absoluteString
        }

        var record = StackRecord(gatewayURL: gatewayURL, processes: [])
        for name in ServiceName.executables {
            let port = name == .gateway ? options.gatewayPort : (settings.url(of: name).port ?? name.defaultPort)
            let arguments =
                ConfigKeys.flag("data.dir", settings.dataDirectory.path)
                + ConfigKeys.flag("http.port", String(port))
                + ConfigKeys.flag(
                    "http.host", name == .gateway ? options.host : (settings.url(of: name).host ?? "127.0.0.1"))
                + (name == .gateway ? gatewayArguments : [])
            let child = try supervisor.start(
                name: name, executable: binaries.appendingPathComponent(name.rawValue), arguments: arguments,
                environment: environment)
            record.processes.append(
                .init(
                    name: name, pid: child.pid,
                    url: name == .gateway ? gatewayURL : settings.url(of: name).absoluteString))
        }
        let recordFile = StackRecord.file(in: settings.dataDirectory)
        try FileSystem.writeOwnerOnly(JSONEncoder().encode(record), to: recordFile)

        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let probe = try HealthProbe(settings: settings)
        let outcome = await withTaskGroup(of: Supervisor.Outcome.self) { group in
            group.addTask {
                for await signal in signals {
                    return .signal(signal.description)
                }
                return .signal("end of signals")
            }
            group.addTask { await supervisor.waitForAbort() }
            group.addTask {
                if await waitUntilHealthy(probe: probe, gatewayURL: gatewayURL) {
                    supervisor.markStarted()
                    supervisor.announce("all \(ServiceName.executables.count) processes are healthy")
                    supervisor.announce("gateway at \(gatewayURL)")
                    await supervisor.waitForever()
                }
                return .unhealthy
            }
            let outcome = await group.next()!
            group.cancelAll()
            return outcome
        }
        probe.shutdown()
        switch outcome {
        case .signal(let name): supervisor.announce("received \(name), stopping")
        case .aborted(let name):
            supervisor.announce(
                supervisor.isStarted
                    ? "\(name) exited and --abort-on-exit is set, stopping" : "\(name) exited while starting, stopping")
        case .unhealthy: supervisor.announce("not every process became healthy within \(startTimeout) s, stopping")
        }
        await supervisor.stopAll()
        try? FileManager.default.removeItem(at: recordFile)
        supervisor.announce("stopped")
        if case .signal = outcome { return }
        throw ExitCode(1)
    }

    private func waitUntilHealthy(probe: HealthProbe, gatewayURL: String) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(startTimeout)
        var pending = Set(ServiceName.executables)
        while ContinuousClock.now < deadline, !Task.isCancelled {
            for name in pending where await probe.check(name, gatewayURL: gatewayURL) == .ready {
                pending.remove(name)
            }
            if pending.isEmpty { return true }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return false
    }
}

/// Starts children, prefixes their output, reports exits loudly, stops them in reverse order.
final class Supervisor: Sendable {
    enum Outcome: Sendable {
        case signal(String)
        case aborted(String)
        case unhealthy
    }

    private let abortOnExit: Bool
    private let children = Mutex<[ChildProcess]>([])
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let aborted: AsyncStream<String>
    private let abortContinuation: AsyncStream<String>.Continuation
    private static let output = Mutex<Void>(())

    init(abortOnExit: Bool) {
        self.abortOnExit = abortOnExit
        (aborted, abortContinuation) = AsyncStream.makeStream(of: String.self)
    }

    func start(
        name: ServiceName, executable: URL, arguments: [String], environment: [String: String]
    ) throws -> ChildProcess {
        let prefix = name.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0) + " | "
        let child = try ChildProcess(
            name: name.rawValue, executable: executable, arguments: arguments, environment: environment,
            onLine: { line in Self.write(prefix + line) },
            onExit: { [weak self] status in self?.exited(name.rawValue, status: status) })
        children.withLock { $0.append(child) }
        return child
    }

    private func exited(_ name: String, status: Int32) {
        guard !stopping.load(ordering: .relaxed) else { return }
        announce("\(name) EXITED with status \(status); it is not restarted (see its log lines above)")
        // A stack that cannot start is not left half-started.
        if abortOnExit || !isStarted { abortContinuation.yield(name) }
    }

    /// Every process became healthy once.
    func markStarted() {
        started.store(true, ordering: .relaxed)
    }

    var isStarted: Bool { started.load(ordering: .relaxed) }

    func waitForAbort() async -> Outcome {
        for await name in aborted { return .aborted(name) }
        return .signal("stream ended")
    }

    func waitForever() async {
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }

    /// Stops the children in reverse order; one that does not end its clean stop with status 0
    /// (it failed on the way out, or had to be killed) is reported.
    func stopAll() async {
        stopping.store(true, ordering: .relaxed)
        let running = children.withLock { $0 }
        for child in running.reversed() {
            await child.stop(grace: .seconds(10))
            let status = await child.waitForExit()
            if status != 0 { announce("\(child.name) stopped with status \(status)") }
        }
    }

    func announce(_ message: String) {
        Self.write("pinhole: \(message)")
    }

    static func write(_ line: String) {
        output.withLock { _ in
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
    }
}
