import Contracts
import Foundation
import ServiceHTTP

/// Media's view-URL signing keys (``MediaURLSigner``): one file per key under `directory`,
/// named by its id, holding 32 random bytes, owner-only (0600), as every key of the data
/// directory. Media makes a new key when the newest is older than `rotation`; an older key is
/// kept while URLs signed with it may still be in use (the longest lives two hours, and
/// services may sign with it for one more refresh), then deleted.
struct ViewKeyFiles: Sendable {
    let directory: URL
    let rotation: TimeInterval
    let clock: any WallClock
    let entropy: any Entropy

    /// How long a key outlives its successor.
    static let overlap: TimeInterval = 3 * 3600

    /// The keys to sign and check with now, made or retired as needed.
    func current() throws -> MediaURLKeys {
        try FileSystem.makeOwnerOnlyDirectory(directory)
        let now = clock.now()
        var keys = try load()
        if keys.last.map({ now.timeIntervalSince($0.made) >= rotation }) ?? true {
            // The id is the second a key was made: a second key within a second takes the next.
            let second = max(now.timeIntervalSince1970.rounded(.down), (keys.last?.made.timeIntervalSince1970 ?? 0) + 1)
            let made = Date(timeIntervalSince1970: second)
            let key = (kid: Self.kid(made), made: made, secret: Data(entropy.bytes(32)))
            try FileSystem.writeOwnerOnly(key.secret, to: directory.appendingPathComponent(key.kid))
            keys.append(key)
        }
        // A key is retired once its successor has been signing for `overlap`.
        for (older, newer) in zip(keys, keys.dropFirst()) where now.timeIntervalSince(newer.made) >= Self.overlap {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(older.kid))
            keys.removeAll { $0.kid == older.kid }
        }
        return MediaURLKeys(
            current: keys[keys.count - 1].kid,
            keys: keys.map { MediaURLKey(kid: $0.kid, secret: Base64URL.encode($0.secret)) })
    }

    /// The keys on disk, oldest first (their ids say when they were made).
    private func load() throws -> [(kid: String, made: Date, secret: Data)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        return try names.compactMap { name in
            guard let made = Self.made(name) else { return nil }
            let secret = try Data(contentsOf: directory.appendingPathComponent(name))
            guard secret.count == 32 else { throw ConfigurationError("\(directory.path)/\(name) is not 32 bytes") }
            return (name, made, secret)
        }.sorted { $0.made < $1.made }
    }

    /// A key's id: `v` and the second it was made, in base 36.
    static func kid(_ made: Date) -> String { "v" + String(Int(made.timeIntervalSince1970), radix: 36) }

    static func made(_ kid: String) -> Date? {
        guard kid.hasPrefix("v"), let seconds = Int(kid.dropFirst(), radix: 36) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
