import Foundation

/// Base64url without padding (RFC 4648 §5), as JWTs, JWKs and Pinhole's opaque tokens use it.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes bytes. Written out by hand because request ids are made on every request and
    /// Foundation's base64 plus character replacement showed up in profiles.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        let length = (input.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: length) { output in
            var written = 0
            var index = 0
            while index + 3 <= input.count {
                let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                for shift in [18, 12, 6, 0] {
                    output[written] = alphabet[Int((chunk >> UInt32(shift)) & 0x3F)]
                    written += 1
                }
                index += 3
            }
            let rest = input.count - index
            if rest > 0 {
                let chunk = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
                for shift in [18, 12, 6].prefix(rest + 1) {
                    output[written] = alphabet[Int((chunk >> UInt32(shift)) & 0x3F)]
                    written += 1
                }
            }
            return written
        }
    }

    /// Decodes text, or nil when it is not base64url.
    public static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("=") else { return nil }
        switch base64.count % 4 {
        case 0: break
        case 2: base64 += "=="
        case 3: base64 += "="
        default: return nil
        }
        return Data(base64Encoded: base64)
    }
}

/// Lowercase hexadecimal, for trace ids and digests.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Encodes bytes as lowercase hex.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        return String(unsafeUninitializedCapacity: input.count * 2) { output in
            for (offset, byte) in input.enumerated() {
                output[offset * 2] = digits[Int(byte >> 4)]
                output[offset * 2 + 1] = digits[Int(byte & 0x0F)]
            }
            return input.count * 2
        }
    }

    /// Decodes hex (either case); nil for an odd length or a character that is not hex.
    public static func decode(_ text: some StringProtocol) -> Data? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func value(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x61...0x66: byte - 0x61 + 10
            case 0x41...0x46: byte - 0x41 + 10
            default: nil
            }
        }
        var data = Data(capacity: utf8.count / 2)
        for index in stride(from: 0, to: utf8.count, by: 2) {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            data.append(high << 4 | low)
        }
        return data
    }
}
