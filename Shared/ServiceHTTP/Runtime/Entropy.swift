import Crypto
import Foundation
import Synchronization

/// Where every piece of Pinhole gets randomness (ids, tokens, salts, jitter), so that tests
/// can make it repeatable.
public protocol Entropy: Sendable {
    /// `count` random bytes.
    func bytes(_ count: Int) -> [UInt8]
}

extension Entropy {
    /// A random version 4 UUID.
    public func uuid() -> UUID {
        Self.uuid(bytes(16), version: 4)
    }

    /// A version 7 UUID for `date` (RFC 9562): its first 48 bits are the milliseconds since
    /// 1970, the rest random. Ids made later sort later, so an index of them grows at its end.
    public func uuid(at date: Date) -> UUID {
        var raw = bytes(16)
        let milliseconds = UInt64(max(0, JSONCoding.milliseconds(date)))
        for index in 0..<6 { raw[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        return Self.uuid(raw, version: 7)
    }

    /// A new object's id, as Pinhole writes ids: a version 7 UUID for `date`, lowercase. A
    /// table's key index then grows at its end, one page written for many rows, where random
    /// (version 4) ids land each row on another page of the index: more pages to sync, to
    /// checkpoint and to replicate for every write. The time it holds is the object's
    /// `createdAt`, which its answers show anyway; 74 bits of it stay random.
    public func id(at date: Date) -> String {
        uuid(at: date).uuidString.lowercased()
    }

    /// A UUID of 16 bytes, with its version and the RFC 9562 variant set.
    private static func uuid(_ bytes: [UInt8], version: UInt8) -> UUID {
        var raw = bytes
        raw[6] = (raw[6] & 0x0F) | version << 4
        raw[8] = (raw[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
                raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]
            ))
    }

    /// A random number in `0..<1`, for jitter.
    public func unitInterval() -> Double {
        let raw = bytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Double(raw >> 11) / Double(UInt64(1) << 53)
    }

    /// `count` random bytes, base64url without padding: opaque tokens.
    public func token(bytes count: Int = 32) -> String {
        Base64URL.encode(bytes(count))
    }
}

/// The operating system's cryptographically secure generator.
public struct SystemEntropy: Entropy {
    public init() {}
    public func bytes(_ count: Int) -> [UInt8] {
        // One call into the system for all of them (`SystemRandomNumberGenerator` makes one per
        // eight bytes, and on Linux each is a system call): ids are made per request.
        // `arc4random_buf` is glibc's from 2.36 (Debian 12, the images Pinhole builds on).
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let start = buffer.baseAddress { arc4random_buf(start, count) }
            initialized = count
        }
    }
}

/// A deterministic stream for tests: SHA-256 in counter mode over a seed.
public final class SeededEntropy: Entropy {
    private let state: Mutex<(seed: [UInt8], counter: UInt64)>

    public init(seed: String) {
        self.state = Mutex((Array(seed.utf8), 0))
    }

    public func bytes(_ count: Int) -> [UInt8] {
        state.withLock { state in
            var out: [UInt8] = []
            while out.count < count {
                var hasher = SHA256()
                hasher.update(data: state.seed)
                withUnsafeBytes(of: state.counter.bigEndian) { hasher.update(bufferPointer: $0) }
                state.counter += 1
                out.append(contentsOf: hasher.finalize())
            }
            return Array(out.prefix(count))
        }
    }
}
