import Crypto
import Foundation
import NIOCore
import NIOPosix
import ServiceHTTP
import Synchronization

/// The growing files of resumable uploads: `<blobDir>/uploads/<upload id>`, named by the
/// server, owner-only. Bytes are written at the durable offset (anything past it, left by a
/// write that died, is cut off first), flushed to disk before the new offset is recorded, and
/// never beyond the declared length. File calls run on NIO's blocking pool.
struct UploadFiles: Sendable {
    let directory: URL
    /// The running SHA-256 of each upload's durable bytes, so completion need not read the
    /// file again. Lost on restart (or after a broken PATCH): completion then reads the file.
    private let digests = RunningDigests()

    init(blobDirectory: URL) throws {
        self.directory = blobDirectory.appendingPathComponent("uploads", isDirectory: true)
        try FileSystem.makeOwnerOnlyDirectory(directory)
    }

    func url(_ id: String) -> URL { directory.appendingPathComponent(id) }

    func create(_ id: String) throws {
        guard
            FileManager.default.createFile(atPath: url(id).path, contents: nil, attributes: [.posixPermissions: 0o600])
        else { throw ServiceError(.internalError, "The upload store cannot create files.") }
    }

    func remove(_ id: String) {
        digests.state.withLock { _ = $0.removeValue(forKey: id) }
        try? FileManager.default.removeItem(at: url(id))
    }

    /// A checksum the client sent for one PATCH (`Upload-Checksum: sha1 <base64>`).
    struct Checksum: Sendable {
        enum Algorithm: String, Sendable { case sha1, sha256 }
        let algorithm: Algorithm
        let digest: Data

        /// Parses the header; nil for an algorithm Pinhole does not offer.
        init?(header: String) {
            let parts = header.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, let algorithm = Algorithm(rawValue: parts[0].lowercased()),
                let digest = Data(base64Encoded: String(parts[1]))
            else { return nil }
            self.algorithm = algorithm
            self.digest = digest
        }
    }

    enum AppendOutcome {
        /// Bytes written and flushed; the new durable offset.
        case appended(Int)
        /// More bytes than the declared length: nothing kept.
        case tooLong
        /// The bytes do not match the checksum: nothing kept.
        case checksumMismatch
    }

    /// Bytes between two checkpoints of a long PATCH.
    static let checkpointBytes = 8 << 20
    /// Bytes gathered before one write.
    static let writeBatch = 64 << 10

    /// Appends `body` at `offset`, never past `length`. If the body breaks off (the client went
    /// away), what arrived is kept and flushed, unless a checksum was to be verified. Without
    /// a checksum, every ``checkpointBytes`` the file is flushed and `checkpoint` records the
    /// offset, so a process killed mid-PATCH loses at most that much.
    func append(
        _ id: String, at offset: Int, length: Int, body: some AsyncSequence<ByteBuffer, any Error>,
        checksum: Checksum?, checkpoint: @Sendable (Int) async throws -> Void = { _ in }
    ) async throws -> AppendOutcome {
        let file = url(id)
        let handle = try await NIOThreadPool.singleton.runIfActive {
            let handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: UInt64(offset))
            try handle.seekToEnd()
            return handle
        }
        var written = 0
        var received = 0
        var pending = Data()
        pending.reserveCapacity(Self.writeBatch)
        /// Writes what is gathered; every ``checkpointBytes`` also flushes and records.
        func flush() async throws {
            guard !pending.isEmpty else { return }
            let bytes = pending
            pending.removeAll(keepingCapacity: true)
            try await NIOThreadPool.singleton.runIfActive { try handle.write(contentsOf: bytes) }
            let before = written
            written += bytes.count
            if checksum == nil, before / Self.checkpointBytes != written / Self.checkpointBytes {
                try await NIOThreadPool.singleton.runIfActive { try handle.synchronize() }
                try await checkpoint(offset + written)
            }
        }
        var sha1 = Insecure.SHA1()
        var sha256 = SHA256()
        // The whole file's hash continues from the last PATCH when it covered exactly `offset`.
        var whole: SHA256? = digests.state.withLock { digests in
            guard let known = digests.removeValue(forKey: id) else { return offset == 0 ? SHA256() : nil }
            return known.offset == offset ? known.hasher : (offset == 0 ? SHA256() : nil)
        }
        func rollBack() async throws {
            try await NIOThreadPool.singleton.runIfActive {
                try handle.truncate(atOffset: UInt64(offset))
                try handle.close()
            }
        }
        do {
            for try await buffer in body {
                guard offset + received + buffer.readableBytes <= length else {
                    try await rollBack()
                    return .tooLong
                }
                buffer.withUnsafeReadableBytes { bytes in
                    if let checksum {
                        switch checksum.algorithm {
                        case .sha1: sha1.update(bufferPointer: bytes)
                        case .sha256: sha256.update(bufferPointer: bytes)
                        }
                    }
                    whole?.update(bufferPointer: bytes)
                    // Network chunks are small: gather about 1 MiB per trip to the blocking pool.
                    pending.append(contentsOf: bytes)
                }
                received += buffer.readableBytes
                if pending.count >= Self.writeBatch {
                    try await flush()
                }
            }
            try await flush()
        } catch {
            // The client went away mid-PATCH: keep what arrived (tus resumes from it), unless
            // it was to be checked against a checksum that never came whole.
            if checksum != nil {
                try? await rollBack()
            } else {
                try? await flush()
                try? await NIOThreadPool.singleton.runIfActive {
                    try handle.synchronize()
                    try handle.close()
                }
            }
            throw UploadInterrupted(offset: checksum == nil ? offset + written : offset)
        }
        if let checksum {
            let actual =
                switch checksum.algorithm {
                case .sha1: Data(sha1.finalize())
                case .sha256: Data(sha256.finalize())
                }
            guard actual == checksum.digest else {
                try await rollBack()
                return .checksumMismatch
            }
        }
        try await NIOThreadPool.singleton.runIfActive {
            try handle.synchronize()
            try handle.close()
        }
        if let whole { digests.state.withLock { $0[id] = (offset + written, whole) } }
        return .appended(offset + written)
    }

    /// The first `count` bytes of the file.
    func prefix(_ id: String, count: Int) async throws -> [UInt8] {
        let file = url(id)
        return try await NIOThreadPool.singleton.runIfActive {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            return [UInt8](try handle.read(upToCount: count) ?? Data())
        }
    }

    /// The SHA-256 of the whole file of `length` bytes: the running hash when it covers all of
    /// it, otherwise read from the file in 1 MiB pieces.
    func sha256(_ id: String, length: Int) async throws -> String {
        if let known = digests.state.withLock({ $0.removeValue(forKey: id) }), known.offset == length {
            return Hex.encode(known.hasher.finalize())
        }
        let file = url(id)
        return try await NIOThreadPool.singleton.runIfActive { try FileDigest.sha256(of: file).hex }
    }

    /// Ids of the upload files on disk.
    func ids() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    }
}

/// The body of a PATCH broke off; `offset` is what is durably on disk now.
struct UploadInterrupted: Error {
    let offset: Int
}

/// Running hashes of uploads, shared by every copy of ``UploadFiles``.
private final class RunningDigests: Sendable {
    let state = Mutex<[String: (offset: Int, hasher: SHA256)]>([:])
}
