import Foundation
import Hummingbird

extension Parameters {
    /// The path parameter `name` as the client meant it: the router hands a segment as sent,
    /// percent-encoded (`K%C3%A4i`, `%40kai`), so a name is decoded before any rule reads it.
    /// An encoding that does not decode to UTF-8 is a 400.
    public func requireText(_ name: String) throws -> String {
        let raw = try require(name)
        guard let text = raw.removingPercentEncoding else {
            throw ServiceError.validation("`\(name)` is not percent-encoded UTF-8.")
        }
        return text
    }
}
