import Crypto
import Foundation
import NIOCore
import NIOPosix
import ServiceKit

/// Media bytes on the local filesystem, content-addressed: a blob's name is its SHA-256, so
/// the same bytes uploaded twice are stored once and a name can never come from a client.
///
/// A write streams into a temporary file, is flushed to disk, then renamed into place: a
/// crash leaves either no blob or a whole one, never a torn one. File calls block, so they run
/// on NIO's blocking thread pool, never on the tasks that serve requests.
struct BlobStore: Sendable {
    let directory: URL

    init(directory: URL) throws {
        self.directory = directory
        try FileSystem.makeOwnerOnlyDirectory(directory)
        try FileSystem.makeOwnerOnlyDirectory(temporaryDirectory)
    }

    var temporaryDirectory: URL { directory.appendingPathComponent("tmp", isDirectory: true) }

    /// Where the blob with this hex SHA-256 lives.
    func url(sha256: String) -> URL {
        directory.appendingPathComponent(String(sha256.prefix(2)), isDirectory: true)
            .appendingPathComponent(sha256)
    }

    /// Deletes a blob; one that is already gone is fine.
    func remove(sha256: String) throws {
        do {
            try FileManager.default.removeItem(at: url(sha256: sha256))
        } catch CocoaError.fileNoSuchFile {
        }
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
            let (handle, bytes) = (self.handle, Data(buffer.readableBytesView))
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
        try Writer(temporary: temporaryDirectory.appendingPathComponent(UUID().uuidString))
    }

    /// Moves a finished write into place under its hash.
    func commit(_ writer: Writer, sha256: String) throws {
        try adopt(writer.temporary, sha256: sha256)
    }

    /// Moves a finished, flushed file (a write, or a completed resumable upload) into place
    /// under its hash; if those bytes are already stored, the file is dropped.
    func adopt(_ file: URL, sha256: String) throws {
        let target = url(sha256: sha256)
        try FileSystem.makeOwnerOnlyDirectory(target.deletingLastPathComponent())
        if FileManager.default.fileExists(atPath: target.path) {
            try? FileManager.default.removeItem(at: file)
            return
        }
        guard rename(file.path, target.path) == 0 else {
            try? FileManager.default.removeItem(at: file)
            throw ServiceError(.internalError, "The blob store cannot store the file.")
        }
    }

    /// The bytes of a blob.
    func read(sha256: String) async throws -> Data {
        let file = url(sha256: sha256)
        return try await NIOThreadPool.singleton.runIfActive { try Data(contentsOf: file) }
    }

    /// Removes temporary files left by writes that never finished (a crash mid-upload).
    func removeAbandonedWrites() {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: temporaryDirectory.path)) ?? []
        for file in files { try? FileManager.default.removeItem(at: temporaryDirectory.appendingPathComponent(file)) }
    }
}
