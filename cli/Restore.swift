import ArgumentParser
import Foundation
import ServiceHTTP

/// `pinhole restore BACKUP --data-dir NEW`: a backup into an empty data directory.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore a backup into an empty data directory.",
        discussion: """
            Checks every file against the manifest's SHA-256, refuses a backup whose databases \
            carry migrations the built executables do not know (a newer schema), and writes \
            nothing into the data directory until everything is in place: it is assembled beside \
            it and moved in whole. Start the stack on it with `pinhole up --data-dir`.
            """)

    @OptionGroup var options: StackOptions

    @Argument(help: "A backup directory (its newest snapshot) or one of its snapshots/<name> directories.")
    var backup: String

    @Option(help: "Directory holding the built executables. Default: the directory of this pinhole binary.")
    var binDir: String?

    func run() async throws {
        // What SQLite creates beside a database it opens (`-wal`, `-shm`) is owner-only too.
        umask(0o077)
        let started = ContinuousClock.now
        let reader = try await options.reader()
        let data = try ServiceSettings(name: .pinhole, reader: reader).dataDirectory.standardizedFileURL
        do {
            let (root, snapshot) = try Self.locate(URL(fileURLWithPath: backup, isDirectory: true))
            let manifest = try BackupManifest.read(from: snapshot)
            guard manifest.format <= BackupManifest.currentFormat else {
                throw BackupError(
                    "the backup's format \(manifest.format) is newer than this release's "
                        + "(\(BackupManifest.currentFormat)): restore it with release \(manifest.release) or newer")
            }
            let existing = (try? FileManager.default.contentsOfDirectory(atPath: data.path)) ?? []
            guard existing.isEmpty else {
                throw BackupError("\(data.path) is not empty: restore into a new or empty data directory")
            }
            try verify(manifest, snapshot: snapshot)
            try refuseNewerSchema(manifest, snapshot: snapshot)
            let store = BackupFiles.blobStore(reader: reader, dataDirectory: data)
            if manifest.blobs.storage != store.storage {
                say(
                    "pinhole: note: the backup's blobs were in \(manifest.blobs.storage) storage, this "
                        + "configuration uses \(store.storage)")
            }
            let staging = data.deletingLastPathComponent()
                .appendingPathComponent(".\(data.lastPathComponent).restoring-\(UUID().uuidString.prefix(8))")
            do {
                try assemble(
                    manifest, from: snapshot, blobs: root.appendingPathComponent("blobs"), into: staging, data: data,
                    store: store)
                try? FileManager.default.removeItem(at: data)
                guard rename(staging.path, data.path) == 0 else {
                    throw BackupError("cannot move \(staging.path) to \(data.path)")
                }
            } catch {
                try? FileManager.default.removeItem(at: staging)
                throw error
            }
            say(
                "pinhole: restored snapshot \(snapshot.lastPathComponent) (\(manifest.databases.count) databases, "
                    + "\(manifest.files.count) files, \(manifest.blobs.count) blobs) into \(data.path)"
                    + " in \(BackupFiles.seconds(since: started))")
            say("pinhole: start it with: pinhole up --data-dir \(data.path)")
        } catch let error as BackupError {
            say("pinhole: restore refused: \(error)")
            throw ExitCode(1)
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
    private func refuseNewerSchema(_ manifest: BackupManifest, snapshot: URL) throws {
        let binaries = URL(fileURLWithPath: binDir ?? Bundle.main.executableURL!.deletingLastPathComponent().path)
        for database in manifest.databases {
            let applied = try Backup.appliedMigrations(in: snapshot.appendingPathComponent(database.file))
            let known = Set(try Self.knownMigrations(of: database.service, in: binaries))
            let unknown = applied.filter { !known.contains($0) }
            guard unknown.isEmpty else {
                throw BackupError(
                    "the backup is from a newer schema: \(database.service.rawValue) has migrations this build does "
                        + "not know (\(unknown.joined(separator: ", "))); restore it with release "
                        + "\(manifest.release) or newer")
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
