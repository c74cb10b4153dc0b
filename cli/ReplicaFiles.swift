import Crypto
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// The data directory's files that are not databases (the local authority, certificates,
/// signing keys, peppers, view keys), kept as rows of one more SQLite database,
/// `<data>/replica/files.sqlite`, so that Litestream carries them with the databases and a
/// restore `--at` a moment brings back the keys of that moment too.
///
/// `pinhole replicate` writes what changed every few seconds; a restore writes the files back.
struct ReplicaFiles {
    static let name = "files"

    static func file(in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("replica/files.sqlite")
    }

    let pool: DatabasePool

    /// Opens (creating) the files database at `file`, in WAL mode as Litestream needs.
    init(file: URL) throws {
        try FileSystem.makeOwnerOnlyDirectory(file.deletingLastPathComponent())
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        pool = try DatabasePool(path: file.path, configuration: configuration)
        try pool.syncEveryCommit()
        try pool.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS data_file (
                        path TEXT PRIMARY KEY NOT NULL,
                        bytes BLOB NOT NULL,
                        sha256 TEXT NOT NULL)
                    """)
        }
    }

    /// Records the files of `dataDirectory` as they are now (those that changed, appeared or
    /// went); returns how many rows changed.
    @discardableResult
    func record(_ dataDirectory: URL, blobs: URL) throws -> Int {
        var present: [String: (bytes: Data, sha256: String)] = [:]
        for relative in BackupFiles.dataFiles(in: dataDirectory, skipping: blobs) {
            guard let bytes = try? Data(contentsOf: dataDirectory.appendingPathComponent(relative)) else { continue }
            present[relative] = (bytes, Hex.encode(SHA256.hash(data: bytes)))
        }
        return try pool.write { db in
            var changed = 0
            let known = try Row.fetchAll(db, sql: "SELECT path, sha256 FROM data_file")
            var recorded: [String: String] = [:]
            for row in known { recorded[row["path"]] = row["sha256"] }
            for (path, file) in present where recorded[path] != file.sha256 {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO data_file (path, bytes, sha256) VALUES (?, ?, ?)",
                    arguments: [path, file.bytes, file.sha256])
                changed += 1
            }
            for path in recorded.keys where present[path] == nil {
                try db.execute(sql: "DELETE FROM data_file WHERE path = ?", arguments: [path])
                changed += 1
            }
            return changed
        }
    }

    /// Writes every recorded file under `directory`, owner-only; returns how many.
    func writeFiles(into directory: URL) throws -> Int {
        let rows = try pool.read { db in try Row.fetchAll(db, sql: "SELECT path, bytes, sha256 FROM data_file") }
        for row in rows {
            let path: String = row["path"]
            let bytes: Data = row["bytes"]
            guard !path.hasPrefix("/"), !path.split(separator: "/").contains(".."),
                Hex.encode(SHA256.hash(data: bytes)) == row["sha256"]
            else { throw BackupError("the replica's files database holds a damaged entry (\(path))") }
            let target = directory.appendingPathComponent(path)
            try FileSystem.makeOwnerOnlyDirectory(target.deletingLastPathComponent())
            try FileSystem.writeOwnerOnly(bytes, to: target)
        }
        return rows.count
    }

    func close() throws {
        try pool.close()
    }
}
