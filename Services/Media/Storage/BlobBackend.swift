import Foundation
import Hummingbird
import NIOCore

/// Where finished blobs live. Blobs are named by the hex SHA-256 of their bytes, so a name
/// never comes from a client and the same bytes are stored once.
///
/// Writes are staged in a local file first (``BlobStore``), so a backend only ever stores
/// whole, flushed, hashed files.
protocol BlobBackend: Sendable {
    /// Stores the flushed local `file` as blob `sha256` and removes the local file. Storing
    /// bytes that are already there is fine.
    func store(_ file: URL, sha256: String, byteSize: Int) async throws

    /// Deletes a blob; one that is already gone is fine.
    func remove(sha256: String) async throws

    /// Streams bytes `range` of a blob into `writer`.
    func write(sha256: String, range: Range<Int>, to writer: inout any ResponseBodyWriter) async throws

    /// A local file with the blob's bytes, for tools that read files (libvips, ffmpeg).
    /// `scratch` is a fresh file name the backend may download to; the answer says whether the
    /// caller must delete the file afterwards.
    func localFile(sha256: String, scratch: URL) async throws -> (file: URL, isCopy: Bool)

    /// Every stored blob and when it was stored, for garbage collection.
    func list() async throws -> [StoredBlob]
}

/// One blob as a backend lists it.
struct StoredBlob: Sendable, Equatable {
    var sha256: String
    var storedAt: Date
}

extension BlobBackend {
    /// Whether `name` is a blob name (64 lowercase hex digits).
    static func isBlobName(_ name: some StringProtocol) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
