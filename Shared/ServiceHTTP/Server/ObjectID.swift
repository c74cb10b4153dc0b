import Foundation

/// Ids of Pinhole objects are lowercase UUIDs.
public enum ObjectID {
    /// The id in a path: anything that is not an id cannot name an object, so it is a 404.
    public static func path(_ text: String, _ what: String) throws -> String {
        guard let id = canonical(text) else { throw ServiceError.notFound(what) }
        return id
    }

    /// An id in a body: malformed is a 400 naming the field.
    public static func field(_ text: String, _ field: String) throws -> String {
        guard let id = canonical(text) else {
            throw ServiceError.validation("`\(field)` must be an id (a UUID).")
        }
        return id
    }

    /// The lowercase form of a UUID, or nil.
    public static func canonical(_ text: String) -> String? {
        guard text.utf8.count == 36, let uuid = UUID(uuidString: text) else { return nil }
        return uuid.uuidString.lowercased()
    }
}
