import Foundation

/// The part of CBOR (RFC 8949) that App Attest's attestation and assertion objects use (auth
/// reads them; TestSupport's `CBORWriter` makes them for tests): definite-length integers, byte and text strings, arrays and text-keyed maps, and the simple
/// values. Anything else (floats, indefinite lengths, other map keys) is refused rather than
/// guessed at, and so is an object nested deeper than ``maxDepth`` or with trailing bytes.
enum CBOR: Equatable, Sendable {
    case unsigned(UInt64)
    case negative(UInt64)
    case bytes(Data)
    case text(String)
    case array([CBOR])
    case map([String: CBOR])
    case bool(Bool)
    case null

    struct Malformed: Error, Equatable {
        let reason: String
    }

    static let maxDepth = 16

    /// The one CBOR value `data` holds.
    static func decode(_ data: Data) throws(Malformed) -> CBOR {
        var reader = Reader(bytes: [UInt8](data))
        let value = try reader.value(depth: 0)
        guard reader.offset == reader.bytes.count else { throw Malformed(reason: "bytes after the value") }
        return value
    }

    subscript(key: String) -> CBOR? {
        if case .map(let entries) = self { return entries[key] }
        return nil
    }

    var bytes: Data? {
        if case .bytes(let data) = self { return data }
        return nil
    }

    var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    var array: [CBOR]? {
        if case .array(let items) = self { return items }
        return nil
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func take(_ count: Int) throws(Malformed) -> ArraySlice<UInt8> {
            guard count >= 0, count <= bytes.count - offset else { throw Malformed(reason: "truncated") }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        mutating func argument(_ info: UInt8) throws(Malformed) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24...27:
                let width = 1 << Int(info - 24)
                return try take(width).reduce(0) { $0 << 8 | UInt64($1) }
            default: throw Malformed(reason: "indefinite or reserved length")
            }
        }

        mutating func length(_ info: UInt8) throws(Malformed) -> Int {
            let value = try argument(info)
            guard value <= UInt64(bytes.count - offset) else { throw Malformed(reason: "length beyond the data") }
            return Int(value)
        }

        mutating func value(depth: Int) throws(Malformed) -> CBOR {
            guard depth < CBOR.maxDepth else { throw Malformed(reason: "nested too deeply") }
            let initial = try take(1).first ?? 0
            let (major, info) = (initial >> 5, initial & 0x1f)
            switch major {
            case 0: return .unsigned(try argument(info))
            case 1: return .negative(try argument(info))
            case 2: return .bytes(Data(try take(try length(info))))
            case 3:
                guard let text = String(validating: try take(try length(info)), as: UTF8.self) else {
                    throw Malformed(reason: "text is not UTF-8")
                }
                return .text(text)
            case 4:
                let count = try length(info)
                var items: [CBOR] = []
                for _ in 0..<count { items.append(try value(depth: depth + 1)) }
                return .array(items)
            case 5:
                let count = try length(info)
                var entries: [String: CBOR] = [:]
                for _ in 0..<count {
                    guard case .text(let key) = try value(depth: depth + 1) else {
                        throw Malformed(reason: "a map key that is not text")
                    }
                    entries[key] = try value(depth: depth + 1)
                }
                return .map(entries)
            case 6:
                _ = try argument(info)
                return try value(depth: depth + 1)
            default:
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                default: throw Malformed(reason: "an unsupported simple value or float")
                }
            }
        }
    }
}
