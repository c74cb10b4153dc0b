import Contracts
import Foundation
import NIOCore
import ServiceKit

/// A clusters answer's JSON, its clusters written by hand: `JSONEncoder` spent nearly all of a
/// clusters answer's CPU on its five or six hundred clusters (docs/PERFORMANCE.md). The same
/// bytes `JSONCoding`'s encoder writes (sorted keys, the same numbers; a test compares them);
/// the posts and the date still go through that encoder.
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
        out.writeBytes(try encoder.encode(answer.indexedAt))
        out.writeString(",\"posts\":")
        out.writeBytes(try encoder.encode(answer.posts))
        out.writeString(",\"zoom\":\(answer.zoom)}")
        return out
    }

    private static func write(_ cluster: MapCluster, into out: inout ByteBuffer) {
        let box = cluster.box
        out.writeString(
            "{\"box\":{\"maxLatitude\":\(number(box.maxLatitude)),\"maxLongitude\":\(number(box.maxLongitude)),"
                + "\"minLatitude\":\(number(box.minLatitude)),\"minLongitude\":\(number(box.minLongitude))},"
                + "\"count\":\(cluster.count),\"expansionZoom\":\(cluster.expansionZoom),\"id\":")
        string(cluster.id, into: &out)
        out.writeString(
            ",\"latitude\":\(number(cluster.latitude)),\"longitude\":\(number(cluster.longitude)),\"postId\":")
        string(cluster.postId, into: &out)
        out.writeString("}")
    }

    /// A finite double as `JSONEncoder` writes it: the shortest text that reads back the same,
    /// without a trailing `.0`.
    static func number(_ value: Double) -> String {
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// A JSON string: quotes, backslashes and control characters escaped, slashes not.
    static func string(_ value: String, into out: inout ByteBuffer) {
        out.writeInteger(UInt8(ascii: "\""))
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
