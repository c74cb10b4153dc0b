import ArgumentParser
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// `pinhole backup DIR`: an online, consistent copy of a data directory.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy every database, the keys, the local authority and the blobs into a backup directory.",
        discussion: """
            Runs while the stack serves traffic: each database is copied with SQLite's VACUUM INTO \
            from a read transaction, which never blocks its service's writes, and is consistent in \
            itself. The six databases are copied one after another, so they are a few moments \
            apart; events still in an outbox are in its database and are delivered after a \
            restore (receivers ignore ones they already applied). Blobs are copied last and only \
            when new: a backup directory keeps every snapshot's blobs once. Uploads still in \
            progress are not copied (their clients start them again). With media.storage=s3 the \
            blobs stay in the bucket; keep its versioning on.
            """)

    @OptionGroup var options: StackOptions

    @Argument(help: "The backup directory; created when missing. Each run adds a snapshot to it.")
    var directory: String

    func run() async throws {
        // What SQLite creates beside a database it opens (`-wal`, `-shm`) is owner-only too.
        umask(0o077)
        let started = ContinuousClock.now
        let reader = try await options.reader()
        let settings = try ServiceSettings(name: .pinhole, reader: reader)
        let data = settings.dataDirectory
        guard FileManager.default.fileExists(atPath: data.path) else {
            say("pinhole: \(data.path) does not exist: nothing to back up")
            throw ExitCode(1)
        }
        let backup = URL(fileURLWithPath: directory, isDirectory: true)
        let name = Self.snapshotName(Date())
        let snapshots = backup.appendingPathComponent("snapshots", isDirectory: true)
        let partial = snapshots.appendingPathComponent(".\(name).partial", isDirectory: true)
        let snapshot = snapshots.appendingPathComponent(name, isDirectory: true)
        try FileSystem.makeOwnerOnlyDirectory(backup)
        try FileSystem.makeOwnerOnlyDirectory(snapshots)
        try FileSystem.makeOwnerOnlyDirectory(partial)
        do {
            let databases = try copyDatabases(from: data, into: partial)
            let store = BackupFiles.blobStore(reader: reader, dataDirectory: data)
            let files = try copyFiles(from: data, into: partial, skipping: store.directory)
            let (blobs, newBlobs, newBytes) = try copyBlobs(
                store, into: backup.appendingPathComponent("blobs", isDirectory: true), listIn: partial)
            let manifest = BackupManifest(
                format: BackupManifest.currentFormat, release: PinholeRelease.version, createdAt: Date(),
                databases: databases, files: files, blobs: blobs)
            try manifest.write(to: partial)
            guard rename(partial.path, snapshot.path) == 0 else {
                throw BackupError("cannot move \(partial.path) to \(snapshot.path)")
            }
            try FileSystem.writeOwnerOnly(Data((name + "\n").utf8), to: backup.appendingPathComponent("latest"))
            let databaseBytes = databases.reduce(Int64(0)) { $0 + $1.bytes }
            let blobText =
                blobs.storage == "local"
                ? "\(blobs.count) blobs (\(BackupFiles.size(blobs.bytes)); \(newBlobs) new, \(BackupFiles.size(newBytes)) copied)"
                : "no blobs (media.storage=\(blobs.storage): they stay in the bucket)"
            say(
                "pinhole: backed up \(databases.count) databases (\(BackupFiles.size(databaseBytes))), "
                    + "\(files.count) files and \(blobText) in \(BackupFiles.seconds(since: started))")
            say("pinhole: snapshot \(snapshot.path)")
        } catch {
            try? FileManager.default.removeItem(at: partial)
            say("pinhole: backup failed, nothing was kept: \(error)")
            throw ExitCode(1)
        }
    }

    /// `20261126T053012.345Z`: sorts as it was taken.
    static func snapshotName(_ date: Date) -> String {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
        return format.string(from: date)
    }

    /// Each service's database, copied with `VACUUM INTO` over a read-only connection (a WAL
    /// reader: its service goes on writing meanwhile).
    private func copyDatabases(from data: URL, into snapshot: URL) throws -> [BackupManifest.Database] {
        var copied: [BackupManifest.Database] = []
        try FileSystem.makeOwnerOnlyDirectory(snapshot.appendingPathComponent("databases"))
        for service in ServiceName.services {
            let live = data.appendingPathComponent("\(service.rawValue)/\(service.rawValue).sqlite")
            guard FileManager.default.fileExists(atPath: live.path) else { continue }
            let relative = "databases/\(service.rawValue).sqlite"
            let copy = snapshot.appendingPathComponent(relative)
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(10)
            let source = try DatabaseQueue(path: live.path, configuration: configuration)
            try source.inDatabase { db in try db.execute(sql: "VACUUM INTO ?", arguments: [copy.path]) }
            try source.close()
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: copy.path)
            let migrations = try Self.appliedMigrations(in: copy)
            let (sha256, bytes) = try BackupFiles.sha256(of: copy)
            copied.append(
                .init(service: service, file: relative, bytes: bytes, sha256: sha256, migrations: migrations))
        }
        return copied
    }

    /// The migrations a database file records, in the order they were applied.
    static func appliedMigrations(in file: URL) throws -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: file.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            guard try db.tableExists("grdb_migrations") else { return [] }
            return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
        }
    }

    /// Every other file of the data directory (keys, peppers, the local authority).
    private func copyFiles(from data: URL, into snapshot: URL, skipping blobs: URL) throws -> [BackupManifest.File] {
        var copied: [BackupManifest.File] = []
        for relative in BackupFiles.dataFiles(in: data, skipping: blobs) {
            let copy = snapshot.appendingPathComponent("files/" + relative)
            try BackupFiles.copyOwnerOnly(data.appendingPathComponent(relative), to: copy)
            let (sha256, bytes) = try BackupFiles.sha256(of: copy)
            copied.append(.init(path: relative, bytes: bytes, sha256: sha256))
        }
        return copied
    }

    /// The blobs present now, into the backup's shared blob directory (only those it lacks),
    /// and their names into the snapshot's list.
    private func copyBlobs(
        _ store: (storage: String, directory: URL), into shared: URL, listIn snapshot: URL
    ) throws -> (BackupManifest.Blobs, new: Int, newBytes: Int64) {
        var names: [String] = []
        var bytes: Int64 = 0
        var new = 0
        var newBytes: Int64 = 0
        if store.storage == "local" {
            let shards = (try? FileManager.default.contentsOfDirectory(atPath: store.directory.path)) ?? []
            for shard in shards.sorted() where shard.utf8.count == 2 {
                let folder = store.directory.appendingPathComponent(shard, isDirectory: true)
                for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.sorted() ?? []
                where BackupFiles.isBlobName(name[...]) && name.hasPrefix(shard) {
                    let source = folder.appendingPathComponent(name)
                    let size = (try? source.resourceValues(forKeys: [.fileSizeKey]).fileSize).flatMap { $0 } ?? 0
                    let target = BackupFiles.blob(name, in: shared)
                    if !FileManager.default.fileExists(atPath: target.path) {
                        do {
                            try BackupFiles.copyOwnerOnly(source, to: target)
                        } catch  where !FileManager.default.fileExists(atPath: source.path) {
                            continue  // collected as garbage meanwhile: no database row names it
                        }
                        new += 1
                        newBytes += Int64(size)
                    }
                    names.append(name)
                    bytes += Int64(size)
                }
            }
        }
        let list = snapshot.appendingPathComponent("blobs.txt")
        try FileSystem.writeOwnerOnly(Data(names.map { $0 + "\n" }.joined().utf8), to: list)
        let blobs = BackupManifest.Blobs(
            storage: store.storage, count: names.count, bytes: bytes, list: "blobs.txt",
            listSha256: try BackupFiles.sha256(of: list).hex)
        return (blobs, new, newBytes)
    }
}
