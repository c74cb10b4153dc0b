import Foundation
import ServiceHTTP

/// A list bound as one argument: `IN (SELECT value FROM json_each(?))` with
/// `JSONList.argument(ids)`, so one cached statement serves a list of any length.
public enum JSONList {
    /// `values` as a JSON array.
    public static func argument(_ values: some Sequence<String>) -> String {
        String(decoding: (try? JSONCoding.sharedEncoder.encode(Array(values))) ?? Data("[]".utf8), as: UTF8.self)
    }
}
