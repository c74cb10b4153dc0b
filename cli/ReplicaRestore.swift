import Configuration
import Foundation
import GRDB
import ServiceHTTP

/// `pinhole restore --from-replica URL [--at TIME]`: every database and the data directory's
/// files as the replica held them at one moment, checked, then the blobs media's rows name.
/// Assembled beside the data directory and moved into place whole.
struct ReplicaRestore {
    let replication: ReplicationSettings
    /// RFC 3339, or nil for the newest.
    let moment: String?
    let data: URL
    let binaries: URL
    let litestream: URL
    let reader: ConfigReader
    /// Whether a replica with nothing in it ends the restore quietly (``EmptyReplica``) rather
    /// than as a failure.
    var ifReplicaExists = false

    /// The replica holds no database yet.
    struct EmptyReplica: Error {}

    func run(started: ContinuousClock.Instant) async throws {
        var fileCount = 0
        var blobLine = ""
        try await Restore.assembleBeside(data) { staging in
            try FileSystem.makeOwnerOnlyDirectory(staging)
            let plan = LitestreamPlan(replication: replication, dataDirectory: staging, metricsAddress: nil)
            let scratch = staging.appendingPathComponent("run", isDirectory: true)
            let config = try plan.writeConfiguration(to: scratch.appendingPathComponent("litestream-restore.yml"))
            for database in plan.databases {
                try FileSystem.makeOwnerOnlyDirectory(database.file.deletingLastPathComponent())
                var arguments = ["restore", "-config", config.path]
                if let moment { arguments += ["-timestamp", moment] }
                if ifReplicaExists { arguments.append("-if-replica-exists") }
                let (status, lines) = try await ChildOutput.run(
                    litestream, arguments + [database.file.path], environment: plan.environment())
                if ifReplicaExists, status == 0, !FileManager.default.fileExists(atPath: database.file.path) {
                    throw EmptyReplica()
                }
                guard status == 0, FileManager.default.fileExists(atPath: database.file.path) else {
                    throw BackupError(
                        "Litestream could not restore \(database.name) from \(replication.url)"
                            + (moment.map { " at \($0)" } ?? "") + ": " + lines.suffix(3).joined(separator: " "))
                }
                try Self.checkIntegrity(of: database.file, name: database.name)
            }
            try Restore.refuseNewerSchema(
                ServiceName.services.map {
                    ($0, staging.appendingPathComponent("\($0.rawValue)/\($0.rawValue).sqlite"))
                }, binaries: binaries, release: "the release that wrote the replica, or a newer one")
            let files = try ReplicaFiles(file: ReplicaFiles.file(in: staging))
            fileCount = try files.writeFiles(into: staging)
            try files.close()
            try FileManager.default.removeItem(at: scratch)
            blobLine = try await fetchBlobs(into: staging)
        }
        say(
            "pinhole: restored \(ServiceName.services.count) databases and \(fileCount) files from \(replication.url)"
                + (moment.map { " as of \($0)" } ?? " (newest)") + " into \(data.path) in "
                + BackupFiles.seconds(since: started))
        say("pinhole: \(blobLine)")
        say("pinhole: start it with: pinhole up --data-dir \(data.path)")
        if moment != nil {
            // Its newest moment goes on where the replica ends; a past one would fork it.
            say(
                "pinhole: before replicating it, set replication.url to a new prefix: the old one holds history "
                    + "this directory no longer shares")
        }
    }

    /// `PRAGMA integrity_check` must answer `ok`.
    static func checkIntegrity(of file: URL, name: String) throws {
        let queue = try DatabaseQueue(path: file.path)
        defer { try? queue.close() }
        let answer = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        guard answer == ["ok"] else {
            throw BackupError(
                "the restored \(name) database fails its integrity check: \(answer.prefix(3).joined(separator: "; "))")
        }
    }

    /// Asks media to fetch the blobs its restored rows name (only it knows which).
    private func fetchBlobs(into staging: URL) async throws -> String {
        let media = binaries.appendingPathComponent(ServiceName.media.rawValue)
        guard FileManager.default.isExecutableFile(atPath: media.path) else {
            throw BackupError("\(media.path) is missing: build first (swift build), or pass --bin-dir")
        }
        let (status, lines) = try await ChildOutput.run(
            media,
            ["--restore-blobs"] + ConfigKeys.flag("data.dir", staging.path)
                + ConfigKeys.flag("replication.url", replication.url),
            environment: ProcessInfo.processInfo.environment)
        guard status == 0 else {
            throw BackupError("the blobs could not all be restored: " + lines.suffix(5).joined(separator: " | "))
        }
        return lines.last ?? "media: blobs restored"
    }
}
