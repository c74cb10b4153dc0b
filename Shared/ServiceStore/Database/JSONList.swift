import Foundation
import GRDB
import ServiceHTTP

/// A list bound as one argument: `IN (SELECT value FROM json_each(?))` with
/// `JSONList.argument(ids)`, so one cached statement serves a list of any length.
public enum JSONList {
    /// `values` as a JSON array. Ids and keys (printable ASCII with nothing to escape) are
    /// written directly: every list page binds a few of these. Anything else goes through the
    /// encoder (`values` is read again then: a collection, not a one-pass sequence).
    public static func argument(_ values: some Collection<String>) -> String {
        var text = "["
        for value in values {
            guard
                value.utf8.allSatisfy({
                    (0x20..<0x7F).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
                })
            else { return encoded(Array(values)) }
            if text.utf8.count > 1 { text += "," }
            text += "\"" + value + "\""
        }
        return text + "]"
    }

    /// Those of `ids` that `sql` selects, a cached statement binding `?1` to `viewer` and `?2`
    /// to the list (the mirrors' "which of these does this person block or mute").
    public static func selected(
        _ sql: String, viewer: String, among ids: some Collection<String>, in db: Database
    ) throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        return Set(try String.fetchAll(db.cachedStatement(sql: sql), arguments: [viewer, argument(ids)]))
    }

    static func encoded(_ values: [String]) -> String {
        String(decoding: (try? JSONCoding.sharedEncoder.encode(values)) ?? Data("[]".utf8), as: UTF8.self)
    }
}
