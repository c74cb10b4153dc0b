import Contracts
import Foundation
import NIOCore
import ServiceHTTP

/// A clusters answer's JSON, its clusters written by hand: `JSONEncoder` spent nearly all of a
/// clusters answer's CPU on its five or six hundred clusters (docs/PERFORMANCE.md). The same
/// bytes `JSONCoding`'s encoder writes (sorted keys, the same numbers; a test compares them);
/// the posts still go through that encoder.
enum MapClustersJSON {
    static func encode(_ answer: MapClusters) throws -> ByteBuffer {
        let encoder = JSONCoding.sharedEncoder
        var out = ByteBuffer()
        out.reserveCapacity(160 * answer.clusters.count + 1024)
        out.writeString("{\"clusters\":[")
        for (position, cluster) in answer.clusters.enumerated() {
            if position > 0 { out.writeString(",") }
            write(cluster, into: &out)
        }
        out.writeString("],\"indexedAt\":")
        string(JSONCoding.timestamp(answer.indexedAt), into: &out)
        out.writeString(",\"posts\":")
        if answer.posts.isEmpty {
            out.writeStaticString("[]")
        } else {
            out.writeBytes(try encoder.encode(answer.posts))
        }
        out.writeString(",\"zoom\":\(answer.zoom)}")
        return out
    }

    /// Written piece by piece straight into the buffer: no text is put together on the way
    /// (building each cluster's text first cost more than the writing).
    private static func write(_ cluster: MapCluster, into out: inout ByteBuffer) {
        let box = cluster.box
        number(box.maxLatitude, after: "{\"box\":{\"maxLatitude\":", into: &out)
        number(box.maxLongitude, after: ",\"maxLongitude\":", into: &out)
        number(box.minLatitude, after: ",\"minLatitude\":", into: &out)
        number(box.minLongitude, after: ",\"minLongitude\":", into: &out)
        out.writeStaticString("},\"count\":")
        out.writeString(String(cluster.count))
        out.writeStaticString(",\"expansionZoom\":")
        out.writeString(String(cluster.expansionZoom))
        out.writeStaticString(",\"id\":")
        string(cluster.id, into: &out)
        number(cluster.latitude, after: ",\"latitude\":", into: &out)
        number(cluster.longitude, after: ",\"longitude\":", into: &out)
        out.writeStaticString(",\"postId\":")
        string(cluster.postId, into: &out)
        out.writeStaticString("}")
    }

    /// `key` (the text before a member's value), then the number.
    private static func number(_ value: Double, after key: StaticString, into out: inout ByteBuffer) {
        out.writeStaticString(key)
        number(value, into: &out)
    }

    /// A finite double as `JSONEncoder` writes it: the shortest text that reads back the same,
    /// without a trailing `.0` (short enough to need no allocation).
    static func number(_ value: Double, into out: inout ByteBuffer) {
        let text = value.description.utf8
        if text.count > 2, text[text.index(text.endIndex, offsetBy: -2)] == UInt8(ascii: "."),
            text.last == UInt8(ascii: "0")
        {
            out.writeBytes(text.dropLast(2))
        } else {
            out.writeBytes(text)
        }
    }

    /// A JSON string: quotes, backslashes and control characters escaped, slashes not. Most
    /// strings (ids) need no escape and are copied whole.
    static func string(_ value: String, into out: inout ByteBuffer) {
        out.writeInteger(UInt8(ascii: "\""))
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.writeString(value)
            out.writeInteger(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.writeString("\\\"")
            case UInt8(ascii: "\\"): out.writeString("\\\\")
            case 0x0A: out.writeString("\\n")
            case 0x0D: out.writeString("\\r")
            case 0x09: out.writeString("\\t")
            case 0x08: out.writeString("\\b")
            case 0x0C: out.writeString("\\f")
            case ..<0x20: out.writeString(String(format: "\\u%04x", byte))
            default: out.writeInteger(byte)
            }
        }
        out.writeInteger(UInt8(ascii: "\""))
    }
}
