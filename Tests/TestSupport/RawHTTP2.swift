/// HTTP/2 by hand, for tests that must send what no HTTP/2 client would (a header block that
/// never ends, a body past the window the server gave) over a ``RawConnection``, and read the
/// frames the server answers with.
public enum RawHTTP2 {
    public static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// One frame as it came.
    public struct Frame: Sendable {
        public let type: UInt8
        public let flags: UInt8
        public let stream: UInt32
        public let payload: [UInt8]

        /// A RST_STREAM's or GOAWAY's error code.
        public var errorCode: UInt32? {
            switch type {
            case 0x3 where payload.count >= 4: payload[0..<4].reduce(0) { $0 << 8 | UInt32($1) }
            case 0x7 where payload.count >= 8: payload[4..<8].reduce(0) { $0 << 8 | UInt32($1) }
            default: nil
            }
        }
    }

    /// One frame: the 9-byte header (length, type, flags, stream) and its payload.
    public static func frame(type: UInt8, flags: UInt8 = 0, stream: UInt32, _ payload: [UInt8] = []) -> [UInt8] {
        let length = UInt32(payload.count)
        return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags]
            + [UInt8(stream >> 24 & 0x7f), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)]
            + payload
    }

    /// The whole frames in `bytes`, in order.
    public static func frames(in bytes: [UInt8]) -> [Frame] {
        var frames: [Frame] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            guard offset + 9 + length <= bytes.count else { break }
            let stream = bytes[(offset + 5)..<(offset + 9)].reduce(0) { $0 << 8 | UInt32($1) } & 0x7fff_ffff
            frames.append(
                Frame(
                    type: bytes[offset + 3], flags: bytes[offset + 4], stream: stream,
                    payload: Array(bytes[(offset + 9)..<(offset + 9 + length)])))
            offset += 9 + length
        }
        return frames
    }

    /// A header block of literal fields, neither indexed nor Huffman-coded: what any HPACK
    /// decoder reads.
    public static func headerBlock(_ fields: [(String, String)]) -> [UInt8] {
        var block: [UInt8] = []
        for (name, value) in fields {
            block.append(0x00)
            block += length(name.utf8.count)
            block += name.utf8
            block += length(value.utf8.count)
            block += value.utf8
        }
        return block
    }

    /// A string's length as HPACK writes it: a 7-bit prefix, then 7 bits a byte.
    private static func length(_ count: Int) -> [UInt8] {
        guard count >= 127 else { return [UInt8(count)] }
        var bytes: [UInt8] = [127]
        var rest = count - 127
        while rest >= 128 {
            bytes.append(UInt8(rest & 0x7f | 0x80))
            rest >>= 7
        }
        bytes.append(UInt8(rest))
        return bytes
    }
}
