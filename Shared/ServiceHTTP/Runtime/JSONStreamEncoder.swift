import Foundation
import NIOCore

/// Writes an `Encodable` answer as JSON in one pass, with Pinhole's conventions
/// (``JSONCoding``): what `Response.json` sends.
///
/// Foundation's `JSONEncoder` first builds a tree of every value (a dictionary for every
/// object, hashed and then sorted), then writes it: on a page of twenty posts with their
/// people and media views that was a sixth (nearby ranked) to a quarter (the following feed)
/// of feed's CPU. This writes each field as the value's `encode(to:)` hands it over, so an
/// object's keys come in the order its type encodes them (declaration order for synthesized
/// conformances: as stable as sorting, without the sort). `[String: Value]` dictionaries, whose order is the hash's, are written sorted.
///
/// What a one-pass writer cannot do - a container used after a later one opened (a nested
/// container written to out of turn), a value that asks for two kinds of container - is
/// handed to `JSONEncoder` whole, so every `Encodable` is still written, and the same way.
public enum JSONStreamEncoder {
    /// `value` as JSON.
    public static func encode(_ value: some Encodable) throws -> ByteBuffer {
        let writer = JSONStreamWriter()
        do {
            try writer.write(value)
            try writer.finish()
            return ByteBuffer(bytes: writer.bytes)
        } catch is JSONStreamWriter.OutOfTurn {
            return ByteBuffer(bytes: try JSONCoding.sharedEncoder.encode(value))
        }
    }
}

/// The writer behind ``JSONStreamEncoder``: the `Encoder` every value of an answer is handed.
final class JSONStreamWriter: Encoder {
    /// A use of the containers a one-pass writer cannot follow.
    struct OutOfTurn: Error {}

    /// What the value being written opened, and how many elements it has written so far.
    struct Level {
        enum Container { case none, keyed, unkeyed, single }
        var container = Container.none
        var count = 0
    }

    // Unchecked: only this writer touches its state, one call at a time, and checking every
    // access at run time was a third of the writer's time. Bytes go to an array, copied into
    // the answer's buffer once at the end: a `ByteBuffer` checks its storage's exclusivity on
    // every write, and an answer is thousands of small ones.
    @exclusivity(unchecked) private(set) var bytes: [UInt8] = []
    /// One level for each value being written, the innermost last.
    @exclusivity(unchecked) private(set) var levels: [Level] = []
    /// Set when a container was asked for out of turn (`container(keyedBy:)` cannot throw).
    @exclusivity(unchecked) private var outOfTurn = false

    /// Not kept: nothing Pinhole encodes asks for it, and keeping it costs every field.
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init() {
        bytes.reserveCapacity(4096)
        levels.reserveCapacity(16)
    }

    func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Nested containers and `superEncoder()` write into their parent's container out of
    /// turn (the parent may write again while they are open), which one pass cannot follow:
    /// Pinhole's types use none, and any that does is written by `JSONEncoder`.
    @discardableResult
    func refuseOutOfTurn() -> any Encoder {
        outOfTurn = true
        return self
    }

    func finish() throws {
        if outOfTurn || !levels.isEmpty { throw OutOfTurn() }
    }

    // MARK: Values

    /// Writes any value: the ones JSON has a form for at once (``JSONStreamScalar``), the rest
    /// through their `encode(to:)` on a level of their own.
    func write<T: Encodable>(_ value: T) throws {
        if let scalar = value as? any JSONStreamScalar {
            try scalar.write(to: self)
        } else {
            levels.append(Level())
            try value.encode(to: self)
            try endLevel()
        }
    }

    func writeNull() {
        append("null")
    }

    func write(bool: Bool) {
        append(bool ? "true" : "false")
    }

    /// An integer's digits, written where they go (no text made for each).
    func write(integer: some FixedWidthInteger) {
        guard let magnitude = UInt64(exactly: integer.magnitude) else { return append(String(integer)) }
        if integer < 0 { append(UInt8(ascii: "-")) }
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        let end = bytes.count + digits
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        rest = magnitude
        for index in stride(from: end - 1, through: end - digits, by: -1) {
            bytes[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
    }

    /// As `JSONEncoder` writes it: the shortest form that reads back the same, `.0` dropped;
    /// NaN and infinities are not JSON.
    func write<Float: BinaryFloatingPoint & CustomStringConvertible>(float: Float) throws {
        guard float.isFinite else {
            throw EncodingError.invalidValue(
                float,
                .init(codingPath: [], debugDescription: "Unable to encode \(Float.self).\(float) directly in JSON."))
        }
        var text = float.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        append(text)
    }

    /// A JSON string: quotes, backslashes and control characters escaped, nothing else (slashes
    /// and non-ASCII as they are, as `.withoutEscapingSlashes` writes them).
    func write(string: String) {
        append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                switch byte {
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\\"): append("\\\\")
                case 0x08: append("\\b")
                case 0x0C: append("\\f")
                case 0x0A: append("\\n")
                case 0x0D: append("\\r")
                case 0x09: append("\\t")
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    append("\\u00")
                    append(hex[Int(byte >> 4)])
                    append(hex[Int(byte & 0x0F)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        append(UInt8(ascii: "\""))
    }

    // MARK: Levels

    /// Opens `container` on the innermost level, or goes on with the one it has.
    private func open(_ container: Level.Container) {
        guard let last = levels.indices.last else { return outOfTurn = true }
        switch (levels[last].container, container) {
        case (.none, .keyed): append(UInt8(ascii: "{"))
        case (.none, .unkeyed): append(UInt8(ascii: "["))
        case (.none, .single): break
        // A type may write its fields after another type wrote its own into the same object.
        case (.keyed, .keyed): return
        default: return outOfTurn = true
        }
        levels[last].container = container
    }

    /// Closes the innermost level's container. A value that wrote nothing is `{}`, as
    /// `JSONEncoder` writes it.
    private func endLevel() throws {
        guard let level = levels.popLast() else { throw OutOfTurn() }
        switch level.container {
        case .none: append("{}")
        case .keyed: append(UInt8(ascii: "}"))
        case .unkeyed: append(UInt8(ascii: "]"))
        case .single: if level.count != 1 { throw OutOfTurn() }
        }
    }

    /// Before an element of the container at `depth`: it must be the innermost (no later
    /// container is open), and elements after the first take a comma.
    func element(at depth: Int) throws {
        guard !outOfTurn, levels.count == depth else { throw OutOfTurn() }
        let index = depth - 1
        if levels[index].container == .single {
            guard levels[index].count == 0 else { throw OutOfTurn() }
        } else if levels[index].count > 0 {
            append(UInt8(ascii: ","))
        }
        levels[index].count += 1
    }

    /// A key and its colon, for the keyed container at `depth`.
    func key(_ key: String, at depth: Int) throws {
        try element(at: depth)
        write(string: key)
        append(UInt8(ascii: ":"))
    }

    /// Opens an object of its own (a dictionary's).
    func beginObject() {
        levels.append(Level(container: .keyed))
        append(UInt8(ascii: "{"))
    }

    func endObject() throws {
        try endLevel()
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        open(.keyed)
        return KeyedEncodingContainer(JSONStreamKeyedContainer<Key>(writer: self, depth: levels.count))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        open(.unkeyed)
        return JSONStreamUnkeyedContainer(writer: self, depth: levels.count)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        open(.single)
        return JSONStreamSingleValueContainer(writer: self, depth: levels.count)
    }
}

/// A value JSON has a form for, written at once rather than through its `encode(to:)`: the
/// numbers, strings and booleans, and what `JSONEncoder` writes in a form of its own (dates
/// as ``JSONCoding`` writes them, data as Base64, URLs as text, string-keyed dictionaries
/// sorted).
protocol JSONStreamScalar {
    func write(to writer: JSONStreamWriter) throws
}

extension String: JSONStreamScalar {
    func write(to writer: JSONStreamWriter) { writer.write(string: self) }
}

extension Bool: JSONStreamScalar {
    func write(to writer: JSONStreamWriter) { writer.write(bool: self) }
}

extension Double: JSONStreamScalar {
    func write(to writer: JSONStreamWriter) throws { try writer.write(float: self) }
}

extension Float: JSONStreamScalar {
    func write(to writer: JSONStreamWriter) throws { try writer.write(float: self) }
}

extension JSONStreamScalar where Self: FixedWidthInteger {
    func write(to writer: JSONStreamWriter) { writer.write(integer: self) }
}

extension Int: JSONStreamScalar {}
extension Int8: JSONStreamScalar {}
extension Int16: JSONStreamScalar {}
extension Int32: JSONStreamScalar {}
extension Int64: JSONStreamScalar {}
extension UInt: JSONStreamScalar {}
extension UInt8: JSONStreamScalar {}
extension UInt16: JSONStreamScalar {}
extension UInt32: JSONStreamScalar {}
extension UInt64: JSONStreamScalar {}

extension Date: JSONStreamScalar {
    func write(to writer: JSONStreamWriter) { writer.write(string: JSONCoding.timestamp(self)) }
}

extension Data: JSONStreamScalar {
    func write(to writer: JSONStreamWriter) { writer.write(string: base64EncodedString()) }
}

extension URL: JSONStreamScalar {
    func write(to writer: JSONStreamWriter) { writer.write(string: absoluteString) }
}

extension Decimal: JSONStreamScalar {
    func write(to writer: JSONStreamWriter) { writer.append(description) }
}

/// A dictionary's own order changes from run to run: its keys are written sorted (by their
/// UTF-8 bytes, as `JSONEncoder`'s `.sortedKeys`).
extension Dictionary: JSONStreamScalar where Key == String, Value: Encodable {
    func write(to writer: JSONStreamWriter) throws {
        writer.beginObject()
        let depth = writer.levels.count
        for (key, value) in sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            try writer.key(key, at: depth)
            try writer.write(value)
        }
        try writer.endObject()
    }
}

struct JSONStreamKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONStreamWriter
    /// The level this container writes to: writes are refused once a deeper one is open.
    let depth: Int
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws {
        try writer.key(key.stringValue, at: depth)
        writer.writeNull()
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try writer.key(key.stringValue, at: depth)
        writer.write(bool: value)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        try writer.key(key.stringValue, at: depth)
        writer.write(string: value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        try writer.key(key.stringValue, at: depth)
        try writer.write(float: value)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        try writer.key(key.stringValue, at: depth)
        try writer.write(float: value)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        try writer.key(key.stringValue, at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: Int8, forKey key: Key) throws {
        try writer.key(key.stringValue, at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: Int16, forKey key: Key) throws {
        try writer.key(key.stringValue, at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: Int32, forKey key: Key) throws {
        try writer.key(key.stringValue, at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        try writer.key(key.stringValue, at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: UInt, forKey key: Key) throws {
        try writer.key(key.stringValue, at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        try writer.key(key.stringValue, at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        try writer.key(key.stringValue, at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        try writer.key(key.stringValue, at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        try writer.key(key.stringValue, at: depth)
        writer.write(integer: value)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try writer.key(key.stringValue, at: depth)
        try writer.write(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        writer.refuseOutOfTurn()
        return KeyedEncodingContainer(JSONStreamKeyedContainer<NestedKey>(writer: writer, depth: depth))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        writer.refuseOutOfTurn()
        return JSONStreamUnkeyedContainer(writer: writer, depth: depth)
    }

    mutating func superEncoder() -> any Encoder { writer.refuseOutOfTurn() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { writer.refuseOutOfTurn() }
}

struct JSONStreamUnkeyedContainer: UnkeyedEncodingContainer, JSONStreamElementContainer {
    let writer: JSONStreamWriter
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var count: Int { writer.levels.indices.contains(depth - 1) ? writer.levels[depth - 1].count : 0 }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        writer.refuseOutOfTurn()
        return KeyedEncodingContainer(JSONStreamKeyedContainer<NestedKey>(writer: writer, depth: depth))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        writer.refuseOutOfTurn()
        return JSONStreamUnkeyedContainer(writer: writer, depth: depth)
    }

    mutating func superEncoder() -> any Encoder { writer.refuseOutOfTurn() }
}

/// A single value's container: the value's level holds exactly one element.
struct JSONStreamSingleValueContainer: SingleValueEncodingContainer, JSONStreamElementContainer {
    let writer: JSONStreamWriter
    let depth: Int
    var codingPath: [any CodingKey] { [] }
}

/// What an unkeyed and a single value's container write the same way: each element (the one
/// element of a single value) after ``JSONStreamWriter/element(at:)``.
protocol JSONStreamElementContainer {
    var writer: JSONStreamWriter { get }
    var depth: Int { get }
}

extension JSONStreamElementContainer {
    mutating func encodeNil() throws {
        try writer.element(at: depth)
        writer.writeNull()
    }

    mutating func encode(_ value: Bool) throws {
        try writer.element(at: depth)
        writer.write(bool: value)
    }

    mutating func encode(_ value: String) throws {
        try writer.element(at: depth)
        writer.write(string: value)
    }

    mutating func encode(_ value: Double) throws {
        try writer.element(at: depth)
        try writer.write(float: value)
    }

    mutating func encode(_ value: Float) throws {
        try writer.element(at: depth)
        try writer.write(float: value)
    }

    mutating func encode(_ value: Int) throws {
        try writer.element(at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: Int8) throws {
        try writer.element(at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: Int16) throws {
        try writer.element(at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: Int32) throws {
        try writer.element(at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: Int64) throws {
        try writer.element(at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: UInt) throws {
        try writer.element(at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: UInt8) throws {
        try writer.element(at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: UInt16) throws {
        try writer.element(at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: UInt32) throws {
        try writer.element(at: depth)
        writer.write(integer: value)
    }

    mutating func encode(_ value: UInt64) throws {
        try writer.element(at: depth)
        writer.write(integer: value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try writer.element(at: depth)
        try writer.write(value)
    }
}
