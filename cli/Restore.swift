import ArgumentParser
import Configuration
import Foundation
import ServiceHTTP

/// `pinhole restore BACKUP --data-dir NEW`: a backup into an empty data directory;
/// `pinhole restore --from-replica URL [--at TIME] --data-dir NEW`: the continuous replica.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore a backup, or the continuous replica at any moment, into an empty data directory.",
        discussion: """
            From a backup: checks every file against the manifest's SHA-256, refuses a backup \
            whose databases carry migrations the built executables do not know (a newer schema), \
            and writes nothing into the data directory until everything is in place: it is \
            assembled beside it and moved in whole. From a replica (replication.url's form, with \
            media.s3.* for s3://): every database and the data directory's files as they were at \
            --at (RFC 3339, e.g. 2026-12-04T21:30:00Z; default: the newest), each database checked \
            with PRAGMA integrity_check and for a newer schema, then the blobs media's rows name \
            fetched from the replica and checked against their SHA-256. Start the stack on it \
            with `pinhole up --data-dir`.
            """)

    @OptionGroup var options: StackOptions

    @Argument(help: "A backup directory (its newest snapshot) or one of its snapshots/<name> directories.")
    var backup: String?

    @Option(help: "Restore from this replica (file:///path or s3://bucket/prefix) instead of a backup.")
    var fromReplica: String?

    @Option(help: "With --from-replica: the moment to restore (RFC 3339). Default: the newest the replica holds.")
    var at: String?

    @Option(help: "Directory holding the built executables. Default: the directory of this pinhole binary.")
    var binDir: String?

    func validate() throws {
        guard (backup == nil) != (fromReplica == nil) else {
            throw ValidationError("give a backup directory or --from-replica URL (one of them)")
        }
        if at != nil, fromReplica == nil { throw ValidationError("--at goes with --from-replica") }
        if let at, Self.moment(at) == nil {
            throw ValidationError("--at takes an RFC 3339 time such as 2026-12-04T21:30:00Z, got \(at)")
        }
    }

    /// An RFC 3339 moment, with or without fractional seconds.
    static func moment(_ text: String) -> Date? {
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = format.date(from: text) { return date }
        format.formatOptions = [.withInternetDateTime]
        return format.date(from: text)
    }

    var binaries: URL {
        URL(fileURLWithPath: binDir ?? Bundle.main.executableURL!.deletingLastPathComponent().path)
    }

    func run() async throws {
        // What SQLite creates beside a database it opens (`-wal`, `-shm`) is owner-only too.
        umask(0o077)
        let started = ContinuousClock.now
        let reader = try await options.reader()
        let data = try ServiceSettings(name: .pinhole, reader: reader).dataDirectory.standardizedFileURL
        do {
            let existing = (try? FileManager.default.contentsOfDirectory(atPath: data.path)) ?? []
            guard existing.isEmpty else {
                throw BackupError("\(data.path) is not empty: restore into a new or empty data directory")
            }
            if let fromReplica {
                let replication: ReplicationSettings
                do {
                    replication = try ReplicationSettings(url: fromReplica, reader: reader)
                } catch let error as ConfigurationError {
                    throw BackupError(error.description)
                }
                try await ReplicaRestore(
                    replication: replication, moment: at, data: data, binaries: binaries,
                    litestream: try LitestreamPlan.executable(replication.litestream),
                    reader: reader
                ).run(started: started)
                return
            }
            try await restoreBackup(
                URL(fileURLWithPath: backup!, isDirectory: true), into: data, reader: reader, started: started)
        } catch let error as BackupError {
            say("pinhole: restore refused: \(error)")
            throw ExitCode(1)
        }
    }

    private func restoreBackup(
        _ path: URL, into data: URL, reader: ConfigReader, started: ContinuousClock.Instant
    ) async throws {
        let (root, snapshot) = try Self.locate(path)
        let manifest = try BackupManifest.read(from: snapshot)
        guard manifest.format <= BackupManifest.currentFormat else {
            throw BackupError(
                "the backup's format \(manifest.format) is newer than this release's "
                    + "(\(BackupManifest.currentFormat)): restore it with release \(manifest.release) or newer")
        }
        try verify(manifest, snapshot: snapshot)
        try Self.refuseNewerSchema(
            manifest.databases.map { ($0.service, snapshot.appendingPathComponent($0.file)) }, binaries: binaries,
            release: "release \(manifest.release) or newer")
        let store = BackupFiles.blobStore(reader: reader, dataDirectory: data)
        if manifest.blobs.storage != store.storage {
            say(
                "pinhole: note: the backup's blobs were in \(manifest.blobs.storage) storage, this "
                    + "configuration uses \(store.storage)")
        }
        try await Self.assembleBeside(data) { staging in
            try assemble(
                manifest, from: snapshot, blobs: root.appendingPathComponent("blobs"), into: staging, data: data,
                store: store)
        }
        say(
            "pinhole: restored snapshot \(snapshot.lastPathComponent) (\(manifest.databases.count) databases, "
                + "\(manifest.files.count) files, \(manifest.blobs.count) blobs) into \(data.path)"
                + " in \(BackupFiles.seconds(since: started))")
        say("pinhole: start it with: pinhole up --data-dir \(data.path)")
    }

    /// Builds the data directory in a staging directory beside it with `build`, then moves it
    /// into place whole; on failure nothing is left.
    static func assembleBeside(_ data: URL, _ build: (URL) async throws -> Void) async throws {
        let staging = data.deletingLastPathComponent()
            .appendingPathComponent(".\(data.lastPathComponent).restoring-\(UUID().uuidString.prefix(8))")
        do {
            try await build(staging)
            try? FileManager.default.removeItem(at: data)
            guard rename(staging.path, data.path) == 0 else {
                throw BackupError("cannot move \(staging.path) to \(data.path)")
            }
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
    }

    /// The backup directory and the snapshot to restore: `latest`'s, or the one named.
    static func locate(_ path: URL) throws -> (root: URL, snapshot: URL) {
        let manager = FileManager.default
        if manager.fileExists(atPath: path.appendingPathComponent("manifest.json").path) {
            return (path.deletingLastPathComponent().deletingLastPathComponent(), path)
        }
        guard let latest = try? String(contentsOf: path.appendingPathComponent("latest"), encoding: .utf8) else {
            throw BackupError("\(path.path) holds no backup (no manifest.json, no latest)")
        }
        let snapshot = path.appendingPathComponent(
            "snapshots/" + latest.trimmingCharacters(in: .whitespacesAndNewlines))
        guard manager.fileExists(atPath: snapshot.appendingPathComponent("manifest.json").path) else {
            throw BackupError("\(snapshot.path) has no manifest.json: the snapshot is incomplete")
        }
        return (path, snapshot)
    }

    /// Every database and file as the manifest hashed it, and the blob list too.
    private func verify(_ manifest: BackupManifest, snapshot: URL) throws {
        let expected =
            manifest.databases.map { ($0.file, $0.sha256) } + manifest.files.map { ("files/" + $0.path, $0.sha256) }
            + [(manifest.blobs.list, manifest.blobs.listSha256)]
        for (relative, sha256) in expected {
            let file = snapshot.appendingPathComponent(relative)
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw BackupError("\(file.path) is missing")
            }
            guard try BackupFiles.sha256(of: file).hex == sha256 else {
                throw BackupError("\(file.path) does not match its SHA-256 in the manifest: the backup is damaged")
            }
        }
    }

    /// Asks each service executable which migrations it knows; a database that carries any
    /// other was written by a newer release.
    static func refuseNewerSchema(_ databases: [(ServiceName, URL)], binaries: URL, release: String) throws {
        for (service, file) in databases {
            let applied = try Backup.appliedMigrations(in: file)
            let known = Set(try knownMigrations(of: service, in: binaries))
            let unknown = applied.filter { !known.contains($0) }
            guard unknown.isEmpty else {
                throw BackupError(
                    "the backup is from a newer schema: \(service.rawValue) has migrations this build does "
                        + "not know (\(unknown.joined(separator: ", "))); restore it with \(release)")
            }
        }
    }

    /// `<service> --list-migrations`.
    static func knownMigrations(of service: ServiceName, in binaries: URL) throws -> [String] {
        let executable = binaries.appendingPathComponent(service.rawValue)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw BackupError("\(executable.path) is missing: build first (swift build), or pass --bin-dir")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--list-migrations"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let names = text.split(separator: "\n").map(String.init)
        guard process.terminationStatus == 0, !names.isEmpty else {
            throw BackupError("\(executable.path) --list-migrations did not list its migrations")
        }
        return names
    }

    /// Builds the data directory in `staging`: databases, files, then the blobs (checked
    /// against their names) into the configured blob store.
    private func assemble(
        _ manifest: BackupManifest, from snapshot: URL, blobs: URL, into staging: URL, data: URL,
        store: (storage: String, directory: URL)
    ) throws {
        try FileSystem.makeOwnerOnlyDirectory(staging)
        for database in manifest.databases {
            let name = database.service.rawValue
            try BackupFiles.copyOwnerOnly(
                snapshot.appendingPathComponent(database.file),
                to: staging.appendingPathComponent("\(name)/\(name).sqlite"))
        }
        for file in manifest.files {
            try BackupFiles.copyOwnerOnly(
                snapshot.appendingPathComponent("files/" + file.path), to: staging.appendingPathComponent(file.path))
        }
        guard manifest.blobs.storage == "local", store.storage == "local" else { return }
        // The blob store as it will be once the staging directory is the data directory.
        let inside = store.directory.standardizedFileURL.path.hasPrefix(data.path + "/")
        let target =
            inside
            ? staging.appendingPathComponent(
                String(store.directory.standardizedFileURL.path.dropFirst(data.path.count + 1)))
            : store.directory
        let list = try String(contentsOf: snapshot.appendingPathComponent(manifest.blobs.list), encoding: .utf8)
        for name in list.split(separator: "\n") {
            guard BackupFiles.isBlobName(name) else { throw BackupError("blobs.txt names \(name), not a blob") }
            let source = BackupFiles.blob(String(name), in: blobs)
            guard FileManager.default.fileExists(atPath: source.path) else {
                throw BackupError("blob \(name) is missing from \(blobs.path)")
            }
            guard try BackupFiles.sha256(of: source).hex == name else {
                throw BackupError("blob \(name) does not match its name: the backup is damaged")
            }
            let destination = BackupFiles.blob(String(name), in: target)
            if !FileManager.default.fileExists(atPath: destination.path) {
                try BackupFiles.copyOwnerOnly(source, to: destination)
            }
        }
    }
}
