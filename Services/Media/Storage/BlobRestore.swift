import Configuration
import Foundation
import GRDB
import Logging
import ServiceHTTP

/// `media --restore-blobs [settings]`: once `pinhole restore --from-replica` has put media's
/// database back, fetches every blob a row of it names from the replica into the local blob
/// store, each checked against its name (its SHA-256). Only media knows which blobs its rows
/// use, so the restore asks it. Exit status 1 when a blob is missing or damaged in the replica.
enum BlobRestore {
    static let flag = "--restore-blobs"

    static func run() async -> Int32 {
        do {
            let reader = try await ConfigReader.pinhole(arguments: CommandLine.arguments.filter { $0 != flag })
            let shared = try ServiceSettings(name: .media, reader: reader)
            let settings = try MediaSettings(reader: reader, shared: shared)
            guard settings.s3 == nil else {
                print("media: blobs are in the bucket (media.storage=s3): nothing to fetch")
                return 0
            }
            guard let replication = settings.replication else {
                print("media: \(flag) needs replication.url")
                return 1
            }
            let used = try usedBlobs(in: shared.dataDirectory.appendingPathComponent("media/media.sqlite"))
            let local = try LocalBlobBackend(directory: settings.blobDirectory)
            let staging = settings.blobDirectory.appendingPathComponent("tmp", isDirectory: true)
            try FileSystem.makeOwnerOnlyDirectory(staging)
            let replica = try BlobReplica.make(
                replication, localStaging: staging, logger: Logger(label: "media.restore"))
            var (fetched, present, failed) = (0, 0, [String]())
            for sha256 in used.sorted() {
                guard !FileManager.default.fileExists(atPath: local.url(sha256: sha256).path) else {
                    present += 1
                    continue
                }
                do {
                    try await fetch(sha256, from: replica.backend, into: local, staging: staging)
                    fetched += 1
                } catch {
                    failed.append(sha256)
                    print("media: blob \(sha256): \(error)")
                }
            }
            print(
                "media: \(fetched) blobs fetched from the replica, \(present) already here"
                    + (failed.isEmpty ? "" : ", \(failed.count) missing or damaged in the replica"))
            return failed.isEmpty ? 0 : 1
        } catch {
            print("media: \(flag) failed: \(error)")
            return 1
        }
    }

    /// The blobs media's rows name, read from the database file without migrating it.
    static func usedBlobs(in file: URL) throws -> Set<String> {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: file.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try MediaStore.usedBlobs(in: db) }
    }

    /// Downloads one blob beside the local store, checks its hash, and moves it into place.
    static func fetch(
        _ sha256: String, from replica: any BlobBackend, into local: LocalBlobBackend, staging: URL
    )
        async throws
    {
        let scratch = staging.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (file, isCopy) = try await replica.localFile(sha256: sha256, scratch: scratch)
        if !isCopy {
            guard FileManager.default.fileExists(atPath: file.path) else { throw BlobRestoreError.missing }
            try FileManager.default.copyItem(at: file, to: scratch)
        }
        let (digest, size) = try FileDigest.sha256(of: scratch)
        guard digest == sha256 else { throw BlobRestoreError.damaged }
        try await local.store(scratch, sha256: sha256, byteSize: size)
    }
}

enum BlobRestoreError: Error, CustomStringConvertible {
    case missing
    case damaged

    var description: String {
        switch self {
        case .missing: "not in the replica"
        case .damaged: "its bytes in the replica do not match its name"
        }
    }
}
