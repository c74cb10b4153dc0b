import AsyncHTTPClient
import Foundation
import Logging
import NIOPosix
import ServiceHTTP
import Synchronization

/// New local blobs, copied to the replica (`replication.url`'s `blobs/`) as they are stored, so
/// a restore of the databases finds the bytes their rows name. Blobs are named by their hash:
/// each is copied once and never rewritten; the replica keeps what garbage collection deletes
/// here, for a restore to an earlier moment (its retention is the bucket's lifecycle).
///
/// A copy that fails (the replica unreachable) does not fail the upload: it is remembered and
/// tried again by ``BlobReplicaWorker``, which also copies, at each start, whatever the replica
/// lacks (a copy a crash interrupted).
final class BlobReplica: Sendable {
    let backend: any BlobBackend
    /// Where a copy is prepared for `backend` (on the same filesystem as what it stores into).
    private let staging: URL
    /// Whether the staged copy is a hard link to the local blob (for an uploading backend) or a
    /// full copy (for a directory, which renames the staged file into place).
    private let linksLocally: Bool
    private let pending = Mutex<Set<String>>([])
    let logger: Logger

    init(backend: any BlobBackend, staging: URL, linksLocally: Bool, logger: Logger) throws {
        self.backend = backend
        self.staging = staging
        self.linksLocally = linksLocally
        self.logger = logger
        try FileSystem.makeOwnerOnlyDirectory(staging)
    }

    /// The replica `settings` names, staging S3 uploads in `localStaging`.
    static func make(_ settings: ReplicationSettings, localStaging: URL, logger: Logger) throws -> BlobReplica {
        switch settings.target {
        case .directory:
            let directory = URL(fileURLWithPath: settings.location(of: "blobs"), isDirectory: true)
            return try BlobReplica(
                backend: try LocalBlobBackend(directory: directory),
                staging: directory.appendingPathComponent("tmp", isDirectory: true), linksLocally: false,
                logger: logger)
        case .s3(let bucket, _):
            let access = settings.s3!
            let location = S3BlobBackend.Location(
                scheme: access.scheme, host: access.host, port: access.port, bucket: bucket,
                addressing: access.pathStyle ? .path : .virtual, prefix: settings.location(of: "blobs") + "/")
            let backend = S3BlobBackend(
                client: .shared,
                signer: S3Signer(
                    accessKeyID: access.accessKeyID, secretAccessKey: access.secretAccessKey, region: access.region),
                location: location)
            return try BlobReplica(backend: backend, staging: localStaging, linksLocally: true, logger: logger)
        }
    }

    /// Copies the local blob `file`; a failure is logged and left for the worker.
    func copy(_ file: URL, sha256: String) async {
        do {
            try await copyNow(file, sha256: sha256)
        } catch {
            pending.withLock { _ = $0.insert(sha256) }
            logger.warning(
                "a blob could not be copied to the replica; it is tried again",
                metadata: ["sha256": "\(sha256)", "error": "\(error)"])
        }
    }

    private func copyNow(_ file: URL, sha256: String) async throws {
        let staged = staging.appendingPathComponent(UUID().uuidString)
        let size = try await NIOThreadPool.singleton.runIfActive { [linksLocally] in
            if linksLocally {
                guard link(file.path, staged.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
            } else {
                try Self.durableCopy(file, to: staged)
            }
            return try FileManager.default.attributesOfItem(atPath: staged.path)[.size] as? Int ?? 0
        }
        do {
            try await backend.store(staged, sha256: sha256, byteSize: size)
        } catch {
            try? FileManager.default.removeItem(at: staged)
            throw error
        }
    }

    /// Copies `source` to `target` and flushes it, so the rename that follows publishes whole bytes.
    private static func durableCopy(_ source: URL, to target: URL) throws {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: target.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown) }
        let output = try FileHandle(forWritingTo: target)
        defer { try? output.close() }
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try output.write(contentsOf: chunk) }
        try output.synchronize()
    }

    /// Copies what failed before; with `everything`, every local blob the replica lacks.
    /// Returns how many were copied.
    @discardableResult
    func catchUp(local: LocalBlobBackend, everything: Bool) async throws -> Int {
        var wanted = pending.withLock { set in
            defer { set.removeAll() }
            return set
        }
        if everything {
            let there = Set(try await backend.list().map(\.sha256))
            for blob in try await local.list() where !there.contains(blob.sha256) { wanted.insert(blob.sha256) }
        }
        var copied = 0
        for sha256 in wanted.sorted() {
            let file = local.url(sha256: sha256)
            // Collected as garbage since: no row names it, nothing to keep.
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            await copy(file, sha256: sha256)
            if !pending.withLock({ $0.contains(sha256) }) { copied += 1 }
        }
        return copied
    }

    var pendingCount: Int { pending.withLock { $0.count } }
}
