import Crypto
import Foundation
import GRDB
import Hummingbird
import NIOCore
import NIOPosix
import ServiceHTTP
import ServiceStore

/// Media bytes: staged and hashed in a local temporary file, then handed whole to a
/// ``BlobBackend`` (the local filesystem by default, or S3-compatible object storage) under
/// their SHA-256. A crash leaves either no blob or a whole one, never a torn one; a staging
/// file left by a crash is removed at the next start.
struct BlobStore: Sendable {
    /// Local staging: `<blobDir>/tmp`.
    let temporaryDirectory: URL
    let backend: any BlobBackend
    /// With replication on and local blobs: where each new blob is copied before it is
    /// acknowledged.
    let replica: BlobReplica?

    init(stagingIn blobDirectory: URL, backend: any BlobBackend, replica: BlobReplica? = nil) throws {
        self.temporaryDirectory = blobDirectory.appendingPathComponent("tmp", isDirectory: true)
        self.backend = backend
        self.replica = replica
        try FileSystem.makeOwnerOnlyDirectory(blobDirectory)
        try FileSystem.makeOwnerOnlyDirectory(temporaryDirectory)
    }

    /// A blob store on the local filesystem under `directory`.
    init(directory: URL) throws {
        try self.init(stagingIn: directory, backend: try LocalBlobBackend(directory: directory))
    }

    /// A fresh staging file name.
    func scratchFile(_ suffix: String = "") -> URL {
        temporaryDirectory.appendingPathComponent(UUID().uuidString + suffix)
    }

    /// A blob being written, by one task at a time.
    final class Writer {
        let temporary: URL
        private let handle: FileHandle
        private var hasher = SHA256()
        private(set) var byteCount = 0
        private(set) var prefix: [UInt8] = []

        init(temporary: URL) throws {
            guard
                FileManager.default.createFile(
                    atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600])
            else { throw ServiceError(.internalError, "The blob store cannot create files.") }
            self.temporary = temporary
            self.handle = try FileHandle(forWritingTo: temporary)
        }

        func append(_ buffer: ByteBuffer) async throws {
            buffer.withUnsafeReadableBytes { bytes in hasher.update(bufferPointer: bytes) }
            if prefix.count < ContentSniffer.prefixLength {
                prefix += buffer.readableBytesView.prefix(ContentSniffer.prefixLength - prefix.count)
            }
            byteCount += buffer.readableBytes
            let bytes = buffer.withUnsafeReadableBytes { Data($0) }
            let handle = self.handle
            try await NIOThreadPool.singleton.runIfActive { try handle.write(contentsOf: bytes) }
        }

        /// Flushes to disk and returns the hex SHA-256.
        func finish() async throws -> String {
            let handle = self.handle
            try await NIOThreadPool.singleton.runIfActive {
                try handle.synchronize()
                try handle.close()
            }
            return Hex.encode(hasher.finalize())
        }

        func discard() {
            try? handle.close()
            try? FileManager.default.removeItem(at: temporary)
        }
    }

    func makeWriter() throws -> Writer {
        try Writer(temporary: scratchFile())
    }

    /// Stores a finished, flushed local file (a write, a completed resumable upload, a
    /// processed copy) under its hash; the local file is gone afterwards.
    func store(_ file: URL, sha256: String) async throws {
        let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
        // With replication on, a blob stored before was copied then.
        let local = replica == nil ? nil : backend as? LocalBlobBackend
        let isNew = local.map { !FileManager.default.fileExists(atPath: $0.url(sha256: sha256).path) } ?? false
        do {
            try await backend.store(file, sha256: sha256, byteSize: size)
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        if let replica, let local, isNew { await replica.copy(local.url(sha256: sha256), sha256: sha256) }
    }

    /// Hashes a local file (one processing made) and stores it; returns its hash and size.
    func storeHashing(_ file: URL) async throws -> (sha256: String, byteSize: Int) {
        let (sha256, size) = try await NIOThreadPool.singleton.runIfActive { try FileDigest.sha256(of: file) }
        try await store(file, sha256: sha256)
        return (sha256, size)
    }

    func remove(sha256: String) async throws {
        try await backend.remove(sha256: sha256)
    }

    /// Deletes `hashes` once the current transaction commits (never if it rolls back). Local
    /// files go before the commit's caller hears back; remote objects just after, and any a
    /// crash misses are collected as orphans later.
    func removeAfterCommit(_ hashes: [String], in db: Database) {
        guard !hashes.isEmpty else { return }
        let backend = self.backend
        GroupCommit.afterCommit(of: db) {
            if let local = backend as? LocalBlobBackend {
                for hash in hashes { local.removeNow(sha256: hash) }
            } else {
                Task { for hash in hashes { try? await backend.remove(sha256: hash) } }
            }
        }
    }

    /// A local file with the blob's bytes and a clean-up to call when done with it.
    func localFile(sha256: String) async throws -> (file: URL, done: @Sendable () -> Void) {
        let (file, isCopy) = try await backend.localFile(sha256: sha256, scratch: scratchFile())
        return (file, { if isCopy { try? FileManager.default.removeItem(at: file) } })
    }

    /// Removes staging files left by writes that never finished (a crash mid-upload).
    func removeAbandonedWrites() {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: temporaryDirectory.path)) ?? []
        for file in files { try? FileManager.default.removeItem(at: temporaryDirectory.appendingPathComponent(file)) }
    }
}

/// SHA-256 of a file, read in 1 MiB pieces.
enum FileDigest {
    static func sha256(of file: URL) throws -> (hex: String, byteSize: Int) {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = SHA256()
        var size = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            size += chunk.count
        }
        return (Hex.encode(hasher.finalize()), size)
    }
}

/// Blobs as files, `<blobDir>/<first two hex digits>/<sha256>`, owner-only. Storing renames the
/// staged file into place (same filesystem), so a blob appears whole or not at all.
struct LocalBlobBackend: BlobBackend {
    let directory: URL

    init(directory: URL) throws {
        self.directory = directory
        try FileSystem.makeOwnerOnlyDirectory(directory)
    }

    func url(sha256: String) -> URL {
        directory.appendingPathComponent(String(sha256.prefix(2)), isDirectory: true)
            .appendingPathComponent(sha256)
    }

    /// Moves `file` (synced by its writer) into place, and syncs the directories whose entries
    /// changed before the caller records the blob: a row committed must never name a blob a
    /// power loss took back.
    func store(_ file: URL, sha256: String, byteSize: Int) async throws {
        let target = url(sha256: sha256)
        let shard = target.deletingLastPathComponent()
        let newShard = !FileManager.default.fileExists(atPath: shard.path)
        try FileSystem.makeOwnerOnlyDirectory(shard)
        if FileManager.default.fileExists(atPath: target.path) {
            // Stored again: refresh its time so the orphan collector leaves it alone while the
            // row that will use it is written.
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: target.path)
            try? FileManager.default.removeItem(at: file)
            return
        }
        guard rename(file.path, target.path) == 0 else {
            throw ServiceError(.internalError, "The blob store cannot store the file.")
        }
        try await NIOThreadPool.singleton.runIfActive {
            FileSystem.syncDirectory(shard)
            if newShard { FileSystem.syncDirectory(directory) }
        }
    }

    func remove(sha256: String) async throws {
        removeNow(sha256: sha256)
    }

    func removeNow(sha256: String) {
        try? FileManager.default.removeItem(at: url(sha256: sha256))
    }

    /// Reads the range in 256 KiB pieces: a large download never sits in memory whole.
    func write(sha256: String, range: Range<Int>, to writer: inout any ResponseBodyWriter) async throws {
        let file = url(sha256: sha256)
        let handle = try await NIOThreadPool.singleton.runIfActive {
            let handle = try FileHandle(forReadingFrom: file)
            try handle.seek(toOffset: UInt64(range.lowerBound))
            return handle
        }
        defer { try? handle.close() }
        var remaining = range.count
        while remaining > 0 {
            let count = min(remaining, 256 << 10)
            let chunk = try await NIOThreadPool.singleton.runIfActive { try handle.read(upToCount: count) ?? Data() }
            guard !chunk.isEmpty else { throw ServiceError(.internalError, "A stored blob is shorter than recorded.") }
            try await writer.write(ByteBuffer(bytes: chunk))
            remaining -= chunk.count
        }
    }

    func localFile(sha256: String, scratch: URL) async throws -> (file: URL, isCopy: Bool) {
        (url(sha256: sha256), false)
    }

    func list() async throws -> [StoredBlob] {
        let keys: [URLResourceKey] = [.contentModificationDateKey]
        var blobs: [StoredBlob] = []
        for shard in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        where shard.utf8.count == 2 {
            let folder = directory.appendingPathComponent(shard, isDirectory: true)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            where Self.isBlobName(name) {
                let values = try? folder.appendingPathComponent(name).resourceValues(forKeys: Set(keys))
                blobs.append(StoredBlob(sha256: name, storedAt: values?.contentModificationDate ?? .distantPast))
            }
        }
        return blobs
    }
}
