import Contracts
import Foundation
import Hummingbird

/// `?limit=&cursor=` of a list endpoint, validated: `limit` is 1...`maximum` (default
/// `defaultLimit`), and the cursor decodes to the endpoint's own position type.
public struct PageRequest<Position: Codable & Sendable>: Sendable {
    /// How many items to return.
    public let limit: Int
    /// Where to start; nil for the first page.
    public let position: Position?

    /// Reads and validates the query of `request`.
    public init(request: Request, defaultLimit: Int = 20, maximum: Int = 100) throws {
        if let text = try request.queryValue("limit") {
            guard let limit = Int(String(text)), (1...maximum).contains(limit) else {
                throw ServiceError.validation("`limit` must be a whole number from 1 to \(maximum).")
            }
            self.limit = limit
        } else {
            self.limit = defaultLimit
        }
        // `cursor=` (empty) is the first page, as no cursor is.
        if let cursor = try request.queryValue("cursor"), !cursor.isEmpty {
            self.position = try Cursor.decode(Position.self, from: String(cursor))
        } else {
            self.position = nil
        }
    }
}

/// Opaque cursors: the position after the last item of a page, encoded so that clients do not
/// build their own. A cursor that does not decode is `INVALID_CURSOR`.
public enum Cursor {
    /// Encodes a position.
    public static func encode(_ position: some Encodable) -> String {
        Base64URL.encode((try? JSONCoding.sharedEncoder.encode(position)) ?? Data())
    }

    /// Decodes a position.
    public static func decode<Position: Decodable>(_ type: Position.Type, from text: String) throws -> Position {
        guard text.utf8.count <= 1024, let data = Base64URL.decode(text),
            let position = try? JSONCoding.sharedDecoder.decode(type, from: data)
        else {
            throw ServiceError(.invalidCursor, "The cursor is not valid for this list; start again without it.")
        }
        return position
    }
}
