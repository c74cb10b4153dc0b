import ArgumentParser
import Configuration
import Foundation
import ServiceHTTP

/// Options every subcommand shares, layered over the same configuration the executables
/// read (environment and `.env`): a flag here wins over both.
struct StackOptions: ParsableArguments {
    @Option(help: "The data directory (databases, blobs, keys, certificates). Default: DATA_DIR or .pinhole")
    var dataDir: String?

    @Option(help: "Address the gateway listens on. Default: 127.0.0.1")
    var host: String = "127.0.0.1"

    @Option(help: "Port the gateway listens on. Default: 8080")
    var gatewayPort: Int = ServiceName.gateway.defaultPort

    /// The configuration, with `--data-dir` applied.
    func reader() async throws -> ConfigReader {
        var arguments = ["pinhole"]
        if let dataDir { arguments += ConfigKeys.flag("data.dir", dataDir) }
        return try await ConfigReader.pinhole(arguments: arguments)
    }

    /// The settings `pinhole` itself runs with (its own certificate, the service URLs).
    func settings() async throws -> ServiceSettings {
        try ServiceSettings(name: .pinhole, reader: try await reader())
    }
}

/// Where a stack's processes listen; written by `pinhole up`, read by `pinhole status`.
struct StackRecord: Codable {
    enum State: String, Codable {
        case running
        /// Exited; `pinhole up` starts it again after its backoff.
        case restarting
        /// Exited too often in a row (or restarts are off): left stopped.
        case givenUp = "given up"
    }

    struct Entry: Codable {
        /// An executable's name, or `replicate`.
        var name: String
        var pid: Int32
        var url: String
        /// When the current run (the first, or the last restart) began.
        var startedAt: Date
        var restarts: Int
        var state: State
    }

    var gatewayURL: String
    var processes: [Entry]

    static func file(in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("run/stack.json")
    }
}

/// Creates the local authority, certificates and the first signing key when missing.
func prepareDataDirectory(_ settings: ServiceSettings) throws -> [String] {
    var notes: [String] = []
    try FileSystem.makeOwnerOnlyDirectory(settings.dataDirectory)
    let issued = try LocalAuthority(dataDirectory: settings.dataDirectory).prepare()
    if !issued.isEmpty {
        notes.append("issued certificates for \(issued.map(\.rawValue).joined(separator: ", "))")
    }
    let keys = SigningKeyStore.defaultDirectory(dataDirectory: settings.dataDirectory)
    if try SigningKeyStore.ensureKey(in: keys, clock: SystemClock(), entropy: SystemEntropy()) {
        notes.append("created auth's first signing key in \(keys.path)")
    }
    return notes
}

struct Init: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Create the local certificate authority, one certificate per executable, and auth's first signing key.")

    @OptionGroup var options: StackOptions

    @Flag(
        help: """
            With replication.url set and an empty data directory, restore it from the replica first \
            (its newest moment), when the replica holds one: a container's init step on a new disk.
            """)
    var restoreIfEmpty = false

    @Option(help: "Directory holding the built executables. Default: the directory of this pinhole binary.")
    var binDir: String?

    func run() async throws {
        let settings = try await options.settings()
        if restoreIfEmpty { try await restoreFromReplica(into: settings.dataDirectory) }
        let notes = try prepareDataDirectory(settings)
        say("pinhole: data directory \(settings.dataDirectory.path)")
        for note in notes { say("pinhole: \(note)") }
        if notes.isEmpty { say("pinhole: nothing to do, everything is in place") }
    }

    private func restoreFromReplica(into data: URL) async throws {
        let reader = try await options.reader()
        guard let replication = try ReplicationSettings.read(reader) else {
            say("pinhole: replication.url is not set: nothing to restore from")
            return
        }
        let existing = (try? FileManager.default.contentsOfDirectory(atPath: data.path)) ?? []
        guard existing.isEmpty else {
            say("pinhole: \(data.path) holds data: not restoring")
            return
        }
        do {
            let binaries = URL(
                fileURLWithPath: binDir ?? Bundle.main.executableURL!.deletingLastPathComponent().path)
            try await ReplicaRestore(
                replication: replication, moment: nil, data: data.standardizedFileURL, binaries: binaries,
                litestream: try LitestreamPlan.executable(replication.litestream),
                reader: reader, ifReplicaExists: true
            ).run(started: .now)
        } catch is ReplicaRestore.EmptyReplica {
            say("pinhole: \(replication.url) holds nothing yet: starting empty")
        } catch let error as BackupError {
            say("pinhole: restore refused: \(error)")
            throw ExitCode(1)
        }
    }
}
