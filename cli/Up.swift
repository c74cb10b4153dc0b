import ArgumentParser
import Configuration
import Foundation
import ServiceHTTP
import Synchronization
import UnixSignals

struct Up: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start all seven processes, wait until each is healthy, and stop them all on Ctrl-C.",
        discussion: """
            Runs the executables already built next to `pinhole` (or in --bin-dir); it builds nothing. \
            With replication.url set it runs `pinhole replicate` (Litestream) beside them.
            Each log line is prefixed with its process. Once the stack is healthy, a process that \
            exits is restarted after 1 s, the wait doubling (up to 30 s) with each quick failure in \
            a row; after --give-up-after of them it is left stopped. With --abort-on-exit the whole \
            stack stops instead. Ctrl-C or SIGTERM stops every process within --stop-grace \
            seconds (the gateway first); a second signal kills them at once.
            """)

    @OptionGroup var options: StackOptions

    @Option(help: "Directory holding the built executables. Default: the directory of this pinhole binary.")
    var binDir: String?

    @Flag(help: "Serve the gateway over TLS with a certificate for localhost from the local authority.")
    var tls = false

    @Flag(help: "Stop the whole stack when any process exits, instead of restarting it.")
    var abortOnExit = false

    @Option(
        help: """
            Leave a process stopped after this many quick failures in a row (exits within 30 s of \
            starting); 0 never restarts.
            """)
    var giveUpAfter: Int = 5

    @Option(help: "Seconds a stop may take before every process still running is killed.")
    var stopGrace: Int = 10

    @Option(help: "Seconds to wait for every process to become healthy.")
    var startTimeout: Int = 60

    /// The gateway's event loops on one machine, unless `http.eventLoops` is set: half the cores
    /// (one on two), since it shares them with the six services, and on fewer loops each wake
    /// does more requests (a sixth less CPU a request for the gateway on one loop of two cores,
    /// docs/performance/gateway.md).
    static func gatewayEventLoops(cores: Int) -> Int { max(1, cores / 2) }

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
        if try await options.reader().string(forKey: "http.eventLoops") == nil {
            let loops = Self.gatewayEventLoops(cores: ProcessInfo.processInfo.activeProcessorCount)
            gatewayArguments += ConfigKeys.flag("http.eventLoops", String(loops))
        }
        let gatewayURL = "\(scheme)://\(options.host):\(options.gatewayPort)"
        let recordFile = StackRecord.file(in: settings.dataDirectory)
        let supervisor = Supervisor(
            abortOnExit: abortOnExit, policy: RestartPolicy(giveUpAfter: giveUpAfter), recordFile: recordFile,
            gatewayURL: gatewayURL)
        var environment = ProcessInfo.processInfo.environment
        for service in ServiceName.services {
            environment["SERVICES_\(service.rawValue.uppercased())_URL"] = settings.url(of: service).absoluteString
        }

        // Trapped before the first child starts: the first signal stops the stack within the
        // grace, a second one kills every process at once.
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let signalWatcher = Task {
            var received = 0
            for await signal in signals {
                received += 1
                if received == 1 {
                    supervisor.requestStop(.signal(signal.description))
                } else {
                    supervisor.announce("received \(signal.description) again, killing every process now")
                    supervisor.killAll()
                }
            }
        }
        do {
            try startAll(
                supervisor, settings: settings, binaries: binaries, environment: environment,
                gatewayURL: gatewayURL, gatewayArguments: gatewayArguments)
            if let replication = try ReplicationSettings.read(try await options.reader()) {
                // `pinhole replicate` (Litestream), as a process of the stack: restarted if it dies.
                try supervisor.start(
                    .init(
                        name: Supervisor.replication, executable: Bundle.main.executableURL!,
                        arguments: ["replicate", "--data-dir", settings.dataDirectory.path], environment: environment,
                        url: replication.url))
            }
        } catch {
            supervisor.announce("could not start every process (\(error)), stopping")
            await supervisor.stopAll(grace: .seconds(stopGrace))
            signalWatcher.cancel()
            throw ExitCode(1)
        }

        let probe = try HealthProbe(settings: settings)
        let outcome = await withTaskGroup(of: Supervisor.Outcome.self) { group in
            group.addTask { await supervisor.nextStopRequest() }
            group.addTask {
                if await waitUntilHealthy(probe: probe, gatewayURL: gatewayURL) {
                    supervisor.markStarted()
                    supervisor.announce("all \(ServiceName.executables.count) processes are healthy")
                    supervisor.announce("gateway at \(gatewayURL)")
                    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                }
                return .unhealthy
            }
            let outcome = await group.next()!
            group.cancelAll()
            return outcome
        }
        probe.shutdown()
        switch outcome {
        case .signal(let name): supervisor.announce("received \(name), stopping (a second signal kills at once)")
        case .aborted(let name):
            supervisor.announce(
                supervisor.isStarted
                    ? "\(name) exited and --abort-on-exit is set, stopping" : "\(name) exited while starting, stopping")
        case .unhealthy: supervisor.announce("not every process became healthy within \(startTimeout) s, stopping")
        }
        await supervisor.stopAll(grace: .seconds(stopGrace))
        signalWatcher.cancel()
        try? FileManager.default.removeItem(at: recordFile)
        supervisor.announce("stopped")
        if case .signal = outcome { return }
        throw ExitCode(1)
    }

    func validate() throws {
        guard giveUpAfter >= 0 else { throw ValidationError("--give-up-after is 0 or more") }
        guard stopGrace >= 0 else { throw ValidationError("--stop-grace is 0 or more") }
    }

    /// Starts the seven, each on its configured port.
    private func startAll(
        _ supervisor: Supervisor, settings: ServiceSettings, binaries: URL, environment: [String: String],
        gatewayURL: String, gatewayArguments: [String]
    ) throws {
        for name in ServiceName.executables {
            let port = name == .gateway ? options.gatewayPort : (settings.url(of: name).port ?? name.defaultPort)
            let arguments =
                ConfigKeys.flag("data.dir", settings.dataDirectory.path)
                + ConfigKeys.flag("http.port", String(port))
                + ConfigKeys.flag(
                    "http.host", name == .gateway ? options.host : (settings.url(of: name).host ?? "127.0.0.1"))
                + (name == .gateway ? gatewayArguments : [])
            try supervisor.start(
                .init(
                    name: name.rawValue, executable: binaries.appendingPathComponent(name.rawValue),
                    arguments: arguments,
                    environment: environment,
                    url: name == .gateway ? gatewayURL : settings.url(of: name).absoluteString))
        }
    }

    private func waitUntilHealthy(probe: HealthProbe, gatewayURL: String) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(startTimeout)
        var pending = Set(ServiceName.executables)
        while ContinuousClock.now < deadline, !Task.isCancelled {
            for name in pending where await probe.check(name, gatewayURL: gatewayURL).health == .ready {
                pending.remove(name)
            }
            if pending.isEmpty { return true }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return false
    }
}
