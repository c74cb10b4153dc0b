import ArgumentParser
import Configuration
import Foundation
import ServiceHTTP
import Synchronization
import UnixSignals

/// `pinhole replicate`: Litestream over every database of the data directory, and the data
/// directory's files into the replica with them.
struct Replicate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replicate every database and the data directory's files continuously (replication.url).",
        discussion: """
            Runs Litestream over the six service databases and the files database (keys, \
            certificates, peppers), with a configuration generated into run/litestream.yml \
            (by default with a long time slice, so that a service's thread that wakes takes the \
            core from it at once; with replication.priority idle, on cores the services leave \
            idle, and restarted with the long slice for a while when a commit waits over a second \
            for it), and records \
            the data directory's files into the files database every 5 s; every 15 s it \
            writes each database's replication lag to run/replication.json, which its service \
            exports as pinhole_replication_lag_seconds. `pinhole up` \
            runs this for you when replication.url is set; run it yourself when the services run \
            under another supervisor. SIGINT or SIGTERM stops Litestream, which syncs once more \
            first.
            """)

    @OptionGroup var options: StackOptions

    func run() async throws {
        // What SQLite creates beside the files database (`-wal`, `-shm`) is owner-only too.
        umask(0o077)
        // Trapped first: a stop that comes while Litestream starts still stops it.
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let reader = try await options.reader()
        let data = try ServiceSettings(name: .pinhole, reader: reader).dataDirectory
        guard let replication = try ReplicationSettings.read(reader) else {
            say("pinhole: replication.url is not set: nothing to replicate")
            throw ExitCode(1)
        }
        let plan = LitestreamPlan(
            replication: replication, dataDirectory: data, metricsAddress: replication.metricsAddress)
        let litestream: URL
        do {
            litestream = try LitestreamPlan.executable(replication.litestream)
        } catch let error as BackupError {
            say("pinhole: \(error)")
            throw ExitCode(1)
        }
        let blobs = BackupFiles.blobStore(reader: reader, dataDirectory: data).directory
        let files = try ReplicaFiles(file: ReplicaFiles.file(in: data))
        try files.record(data, blobs: blobs)
        let config = try plan.writeConfiguration(to: Self.configurationFile(in: data))
        await Self.stopLeftover(in: data)

        let running = RunningLitestream()
        let watcher = Task {
            for await _ in signals {
                running.state.withLock { state in
                    state.stopping = true
                    return state.child
                }?.send(SIGTERM)
            }
        }
        let recorder = Task {
            var report = ReplicationReport(databases: [:])
            var round = 0
            while (try? await Task.sleep(for: .seconds(5))) != nil {
                do {
                    let changed = try files.record(data, blobs: blobs)
                    if changed > 0 {
                        say("pinhole: \(changed) data directory file(s) changed, recorded for the replica")
                    }
                } catch {
                    say("pinhole: the data directory's files could not be recorded: \(error)")
                }
                // Every 15 s, each database's lag for its service's metrics (one listing of the
                // replica per database).
                round += 1
                guard round % 3 == 0 else { continue }
                let confirmed = report.databases.compactMapValues(\.replicated)
                let priority = running.state.withLock { $0.priority }
                for lag in await ReplicaLag.measure(
                    plan, config: config, litestream: litestream, confirmed: confirmed, priority: priority)
                {
                    guard let seconds = lag.seconds else { continue }
                    report.databases[lag.name] = .init(
                        lagSeconds: seconds, measuredAt: Date(), replicated: lag.replica)
                }
                try? report.write(in: data)
            }
        }
        // On idle cores while it keeps up; with the long slice for a rest when it does not,
        // each rest twice the one before.
        let idlePriority = replication.priority == .idle
        var idle = idlePriority
        var rest = Self.firstRest
        let limit = max(.seconds(1), replication.interval * 4)
        var status: Int32 = 0
        while true {
            // A rest from idle cores is taken as the default has it.
            let priority: ChildProcess.Priority = idle ? .idle : replication.priority == .normal ? .normal : .yielding
            let child = try ChildProcess(
                name: "litestream", executable: litestream, arguments: ["replicate", "-config", config.path],
                environment: plan.environment(), priority: priority, onLine: { say($0) })
            try FileSystem.writeOwnerOnly(Data("\(child.pid)\n".utf8), to: Self.pidFile(in: data))
            say(
                "pinhole: replicating \(plan.databases.count) databases to \(replication.url) "
                    + "every \(Int(replication.interval / .milliseconds(1))) ms "
                    + "(Litestream pid \(child.pid)\(Self.describe(priority)))")
            if running.state.withLock({ state in
                state.child = child
                state.priority = priority
                return state.stopping
            }) {
                child.send(SIGTERM)
            }
            // Stops this Litestream, saying why, when it is time to change its priority.
            let change = Task { [idle, rest] () -> String? in
                let reason =
                    idle
                    ? await Self.starvation(of: plan, limit: limit, rest: rest)
                    : idlePriority ? await Self.restOver(rest) : nil
                if let reason {
                    say(reason)
                    child.send(SIGTERM)
                }
                return reason
            }
            status = await child.waitForExit()
            change.cancel()
            guard await change.value != nil, !running.state.withLock({ $0.stopping }) else { break }
            if !idle { rest = min(rest * 2, Self.longestRest) }
            idle.toggle()
        }
        recorder.cancel()
        watcher.cancel()
        try? FileManager.default.removeItem(at: Self.pidFile(in: data))
        try? files.close()
        say("pinhole: Litestream exited with status \(status)")
        if status != 0 { throw ExitCode(status) }
    }

    /// How the start line describes Litestream's `priority`.
    static func describe(_ priority: ChildProcess.Priority) -> String {
        switch priority {
        case .idle: ", on idle cores"
        case .yielding: ", yielding the cores to the services' threads as they wake"
        case .normal: ""
        }
    }

    /// How long Litestream runs with the long slice after it was kept from the commits on
    /// idle cores, the first time; each time after, twice as long, up to `longestRest`.
    static let firstRest = Duration.seconds(15 * 60)
    static let longestRest = Duration.seconds(4 * 3600)

    /// Waits until a database has a commit Litestream has not taken for longer than `limit`
    /// (``LitestreamStarvation``; judged from a few seconds after the start, when Litestream
    /// has had its first look), and answers what to say about it; nil when cancelled.
    static func starvation(of plan: LitestreamPlan, limit: Duration, rest: Duration) async -> String? {
        var starvation = LitestreamStarvation(limit: limit)
        guard (try? await Task.sleep(for: limit * 5)) != nil else { return nil }
        while (try? await Task.sleep(for: .milliseconds(250))) != nil {
            if let name = starvation.starved(plan.databases, now: .now) {
                return "pinhole: Litestream has not taken \(name)'s newest commit for over "
                    + "\(Int(limit / .milliseconds(1))) ms on idle cores: restarting it with a normal share and a long slice for "
                    + "\(Int(rest / .seconds(60))) min"
            }
        }
        return nil
    }

    /// Waits out a rest with the long slice, and answers what to say then; nil when cancelled.
    static func restOver(_ rest: Duration) async -> String? {
        guard (try? await Task.sleep(for: rest)) != nil else { return nil }
        return "pinhole: \(Int(rest / .seconds(60))) min with the long slice over: restarting Litestream on idle cores"
    }

    static func configurationFile(in data: URL) -> URL {
        data.appendingPathComponent("run/litestream.yml")
    }

    static func pidFile(in data: URL) -> URL {
        data.appendingPathComponent("run/litestream.pid")
    }

    /// A Litestream a killed `pinhole replicate` left running: two replicating the same
    /// databases into one replica would write over each other's files.
    static func stopLeftover(in data: URL) async {
        guard let text = try? String(contentsOf: pidFile(in: data), encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0,
            let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8),
            command.contains("litestream")
        else { return }
        say("pinhole: stopping the Litestream (pid \(pid)) a previous run left")
        kill(pid, SIGTERM)
        for _ in 0..<100 where isAlive(pid) { try? await Task.sleep(for: .milliseconds(100)) }
        if isAlive(pid) { kill(pid, SIGKILL) }
    }

    /// Whether `pid` runs: an orphan that exited stays a zombie until something reaps it.
    static func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let state = stat.split(separator: ")").last?.split(separator: " ").first
        else { return false }
        return state != "Z"
    }
}

/// The Litestream `pinhole replicate` runs now, its priority, and whether a stop was asked for.
private final class RunningLitestream: Sendable {
    let state = Mutex<(child: ChildProcess?, priority: ChildProcess.Priority, stopping: Bool)>((nil, .normal, false))
}
