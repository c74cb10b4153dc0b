import Foundation

/// File helpers for secrets and data: everything Pinhole writes under the data directory is
/// readable by its owner only.
public enum FileSystem {
    /// Creates `directory` (and parents) with mode 0700 if missing, and tightens it if present.
    public static func makeOwnerOnlyDirectory(_ directory: URL) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
    }

    /// Writes `data` atomically with mode 0600: a crash leaves the old file or the new one.
    public static func writeOwnerOnly(_ data: Data, to file: URL) throws {
        try makeOwnerOnlyDirectory(file.deletingLastPathComponent())
        let temporary = file.deletingLastPathComponent()
            .appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600])
        else {
            throw ConfigurationError("cannot write \(file.path)")
        }
        let descriptor = open(temporary.path, O_RDONLY)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
        if rename(temporary.path, file.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw ConfigurationError("cannot move \(temporary.path) to \(file.path): errno \(errno)")
        }
        syncDirectory(file.deletingLastPathComponent())
    }

    /// Syncs `directory` itself, so that the names created, renamed or removed in it so far
    /// outlive a power loss (a file's own sync covers its bytes, not its name). Best effort: a
    /// directory that cannot be opened is left alone.
    public static func syncDirectory(_ directory: URL) {
        let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// A secret of `count` random bytes kept in `file` (mode 0600): read if present (it must
    /// have exactly that size), otherwise made now. For keys a service makes for itself (the
    /// PIN pepper, the presigned-URL key).
    public static func secret(in file: URL, count: Int = 32, entropy: any Entropy) throws -> Data {
        if let data = FileManager.default.contents(atPath: file.path) {
            guard data.count == count else {
                throw ConfigurationError("\(file.path) must hold exactly \(count) bytes")
            }
            return data
        }
        let bytes = Data(entropy.bytes(count))
        try writeOwnerOnly(bytes, to: file)
        return bytes
    }

    /// Reads a secret an operator put in place (a provider's private key), refusing one that
    /// group or others can read, as ssh does: such a key may already have leaked.
    public static func readSecret(_ file: URL, what: String) throws -> Data {
        let mode: Int
        do {
            mode = try permissions(of: file)
        } catch {
            throw ConfigurationError("\(what) \(file.path) cannot be read")
        }
        guard mode & 0o077 == 0 else {
            throw ConfigurationError(
                "\(what) \(file.path) is readable by others (mode \(String(mode & 0o777, radix: 8))); chmod 600 it")
        }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw ConfigurationError("\(what) \(file.path) cannot be read")
        }
        return data
    }

    /// The permission bits of a file, for checks and tests.
    public static func permissions(of file: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}
