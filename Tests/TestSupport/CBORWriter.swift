import Foundation

/// CBOR written as App Attest writes its objects (RFC 8949, canonical: map keys in
/// length-then-bytes order), for the fixtures that stand in for a device. Auth only reads
/// CBOR; this is the writing half, kept with the tests.
public indirect enum CBORWriter: Sendable {
    case unsigned(UInt64)
    case negative(UInt64)
    case bytes(Data)
    case text(String)
    case array([CBORWriter])
    case map([String: CBORWriter])
    case bool(Bool)
    case null

    /// The encoded bytes.
    public func encoded() -> Data {
        var out = Data()
        func head(_ major: UInt8, _ value: UInt64) {
            let type = major << 5
            guard value >= 24 else { return out.append(type | UInt8(value)) }
            // 24, 25, 26, 27: one, two, four or eight bytes follow.
            let width = value <= 0xff ? 1 : value <= 0xffff ? 2 : value <= 0xffff_ffff ? 4 : 8
            out.append(type | (24 + UInt8(width.trailingZeroBitCount)))
            out.append(contentsOf: Self.bigEndian(value, count: width))
        }
        func write(_ value: CBORWriter) {
            switch value {
            case .unsigned(let number): head(0, number)
            case .negative(let number): head(1, number)
            case .bytes(let data):
                head(2, UInt64(data.count))
                out.append(data)
            case .text(let text):
                head(3, UInt64(text.utf8.count))
                out.append(contentsOf: Array(text.utf8))
            case .array(let items):
                head(4, UInt64(items.count))
                items.forEach(write)
            case .map(let entries):
                head(5, UInt64(entries.count))
                let keys = entries.keys.sorted { a, b in
                    let (x, y) = (Array(a.utf8), Array(b.utf8))
                    return x.count != y.count ? x.count < y.count : x.lexicographicallyPrecedes(y)
                }
                for key in keys {
                    write(.text(key))
                    write(entries[key] ?? .null)
                }
            case .bool(let flag): out.append(flag ? 0xf5 : 0xf4)
            case .null: out.append(0xf6)
            }
        }
        write(self)
        return out
    }

    private static func bigEndian(_ value: UInt64, count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
