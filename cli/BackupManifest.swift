import Configuration
import Crypto
import Foundation
import ServiceHTTP

/// What one backup holds, written last (`manifest.json`), so a snapshot with a manifest is
/// complete. Layout of a backup directory:
///
/// - `snapshots/<UTC time>/manifest.json`, `databases/<service>.sqlite`, `files/<path in the
///   data directory>` (signing keys, peppers, the local authority and certificates) and
///   `blobs.txt` (the blob names the snapshot needs, one per line);
/// - `blobs/<2 hex>/<sha256>`: the blobs of every snapshot, content-addressed, so a second
///   backup into the same directory copies only the new ones;
/// - `latest`: the newest complete snapshot's name.
struct BackupManifest: Codable {
    static let currentFormat = 1

    struct Database: Codable {
        var service: ServiceName
        /// Relative to the snapshot.
        var file: String
        var bytes: Int64
        var sha256: String
        /// The migrations applied to it, in the order applied.
        var migrations: [String]
    }

    struct File: Codable {
        /// Relative to the data directory (and to the snapshot's `files/`).
        var path: String
        var bytes: Int64
        var sha256: String
    }

    struct Blobs: Codable {
        /// `local`: the blobs are in the backup; `s3`: in the bucket, which keeps its own
        /// versions, and not in the backup.
        var storage: String
        var count: Int
        var bytes: Int64
        /// Relative to the snapshot: one blob name per line.
        var list: String
        var listSha256: String
    }

    var format: Int
    var release: String
    var createdAt: Date
    var databases: [Database]
    var files: [File]
    var blobs: Blobs

    static func read(from snapshot: URL) throws -> BackupManifest {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(
            BackupManifest.self, from: Data(contentsOf: snapshot.appendingPathComponent("manifest.json")))
    }

    func write(to snapshot: URL) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try FileSystem.writeOwnerOnly(encoder.encode(self), to: snapshot.appendingPathComponent("manifest.json"))
    }
}

/// The file operations backup and restore share.
enum BackupFiles {
    /// The data directory's files that are neither databases nor blobs (keys, peppers, the
    /// local authority), relative to it and sorted: not the databases and their journals, not
    /// `run/` (what is running now), not the blob store, not hidden files or directories (such
    /// as Litestream's `.<db>-litestream` state).
    static func dataFiles(in data: URL, skipping blobs: URL) -> [String] {
        let root = data.standardizedFileURL.path
        let skipped = [
            data.appendingPathComponent("run").standardizedFileURL.path, blobs.standardizedFileURL.path,
        ]
        var found: [String] = []
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        while let relative = walker.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if skipped.contains(root + "/" + relative) || name.hasPrefix(".") {
                walker.skipDescendants()
                continue
            }
            guard (walker.fileAttributes?[.type] as? FileAttributeType) == .typeRegular,
                ![".sqlite", ".sqlite-wal", ".sqlite-shm", ".sqlite-journal"].contains(where: name.hasSuffix)
            else { continue }
            found.append(relative)
        }
        return found.sorted()
    }

    /// The hex SHA-256 of a file, read in 1 MiB pieces.
    static func sha256(of file: URL) throws -> (hex: String, bytes: Int64) {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hash = SHA256()
        var bytes: Int64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hash.update(data: chunk)
            bytes += Int64(chunk.count)
        }
        return (hash.finalize().map { String(format: "%02x", $0) }.joined(), bytes)
    }

    /// Copies `source` to `destination` owner-only, through a temporary name in the same
    /// directory, so that a copy cut short never looks finished.
    static func copyOwnerOnly(_ source: URL, to destination: URL) throws {
        let directory = destination.deletingLastPathComponent()
        try FileSystem.makeOwnerOnlyDirectory(directory)
        let temporary = directory.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).tmp")
        try FileManager.default.copyItem(at: source, to: temporary)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary.path)
        guard rename(temporary.path, destination.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw BackupError("cannot move \(temporary.path) to \(destination.path)")
        }
    }

    /// Where a blob lives under a blob directory: `<2 hex>/<sha256>`, as media stores it.
    static func blob(_ name: String, in directory: URL) -> URL {
        directory.appendingPathComponent(String(name.prefix(2)), isDirectory: true).appendingPathComponent(name)
    }

    /// Whether `name` is a blob's name (64 lowercase hex digits).
    static func isBlobName(_ name: Substring) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Media's blob store as configured: its kind (`local` or `s3`) and, when local, its directory.
    static func blobStore(reader: ConfigReader, dataDirectory: URL) -> (storage: String, directory: URL) {
        let storage = reader.string(forKey: "media.storage", default: "local")
        let directory = URL(
            fileURLWithPath: reader.string(
                forKey: "media.blobDir", default: dataDirectory.appendingPathComponent("media/blobs").path),
            isDirectory: true)
        return (storage, directory)
    }

    /// `1.84 s`.
    static func seconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = (ContinuousClock.now - start).components
        return String(format: "%.2f s", Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
    }

    /// `12.3 MB`.
    static func size(_ bytes: Int64) -> String {
        bytes < 1_000_000
            ? String(format: "%.1f kB", Double(bytes) / 1000) : String(format: "%.1f MB", Double(bytes) / 1e6)
    }
}

/// A backup, restore or replication problem, printed plainly to the operator.
struct BackupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
