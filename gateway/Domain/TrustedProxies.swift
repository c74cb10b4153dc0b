import Foundation
import ServiceHTTP

/// The load balancers and reverse proxies in front of the gateway (`public.trustedProxies`:
/// addresses and CIDR ranges, IPv4 or IPv6, comma-separated).
///
/// A connection from one of them carries many clients, so the gateway's per-address limits
/// (rate classes, the address a service limits PIN sign-in by) use the client address the
/// proxy wrote in `X-Forwarded-For` instead, and its connection limits (connections per
/// address, the flood penalty) do not apply to the proxy itself. From any other peer the header
/// is ignored: a client cannot choose the address it is limited by.
struct TrustedProxies: Sendable {
    /// One range: an address and how many of its leading bits must match.
    struct Range: Sendable, Equatable {
        let bytes: [UInt8]
        let prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefix
            for (index, byte) in bytes.enumerated() where remaining > 0 {
                let bits = min(remaining, 8)
                let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
                if address[index] & mask != byte & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    let ranges: [Range]

    static let none = TrustedProxies(ranges: [])

    init(ranges: [Range]) {
        self.ranges = ranges
    }

    /// Parses the setting; an entry that is not an address or a range with a valid prefix
    /// length is an error, so a typo never silently trusts nobody (or everybody).
    init(parsing list: String) throws {
        var ranges: [Range] = []
        for entry in list.split(separator: ",") {
            let text = entry.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2, let bytes = Self.address(String(parts[0])) else {
                throw ConfigurationError("public.trustedProxies: \"\(text)\" is not an address or CIDR range")
            }
            var prefix = bytes.count * 8
            if parts.count == 2 {
                guard let length = Int(parts[1]), (0...prefix).contains(length) else {
                    throw ConfigurationError("public.trustedProxies: \"\(text)\" has no valid prefix length")
                }
                prefix = length
            }
            ranges.append(Range(bytes: bytes, prefix: prefix))
        }
        self.ranges = ranges
    }

    var isEmpty: Bool { ranges.isEmpty }

    /// Whether `address` (as NIO or `X-Forwarded-For` writes it) is one of the proxies.
    func contains(_ address: String) -> Bool {
        guard !ranges.isEmpty, let bytes = Self.address(address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The client of a request that came from `peer` with these `X-Forwarded-For` values.
    ///
    /// From a proxy, the list is read from its end (the entry the nearest proxy appended)
    /// towards its start, past every proxy, and the first address that is not one is the
    /// client: what comes before it was written by the client itself and proves nothing. An
    /// entry that is not an address stops the walk at the last proxy before it.
    func client(peer: String, forwardedFor values: [String]) -> String {
        guard contains(peer) else { return peer }
        var client = peer
        for value in values.reversed() {
            for entry in value.split(separator: ",").reversed() {
                let candidate = Self.stripped(entry)
                guard Self.address(candidate) != nil else { return client }
                client = candidate
                guard contains(candidate) else { return client }
            }
        }
        return client
    }

    /// An `X-Forwarded-For` entry without spaces, brackets or port (`[2001:db8::1]:443`,
    /// `192.0.2.1:5000`).
    private static func stripped(_ entry: Substring) -> String {
        var text = entry.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("["), let end = text.firstIndex(of: "]") {
            text = String(text[text.index(after: text.startIndex)..<end])
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            text = String(text[..<colon])
        }
        return text
    }

    /// The address's bytes: 4 for IPv4 (an IPv4-mapped IPv6 address too), 16 for IPv6.
    static func address(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            return Array(bytes[12...])
        }
        return bytes
    }
}
