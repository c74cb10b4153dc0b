import Contracts
import Foundation
import HTTPTypes
import NIOHTTP1

/// A read of one object owned by another service, by id: `GET /internal/<kind>/{id}` there.
///
/// Services depend on a `Lookup` rather than on HTTP, so a router test hands in a fake and the
/// executable hands in ``internal(_:from:path:)``. The answer is the object, or nil when the
/// owner says 404; any other failure is an upstream error (503/504), never a wrong "not found".
public struct Lookup<Value: Decodable & Sendable>: Sendable {
    /// Finds the object with this id.
    public let find: @Sendable (String) async throws -> Value?

    public init(find: @escaping @Sendable (String) async throws -> Value?) {
        self.find = find
    }

    /// A lookup over the internal client: `GET <pathPrefix>/<id>` on `service`.
    public static func `internal`(
        _ client: InternalClient, from service: ServiceName, path pathPrefix: String
    )
        -> Lookup
    {
        Lookup { id in
            let response = try await client.send(.GET, to: service, path: "\(pathPrefix)/\(id)")
            return try interpret(response, from: service)
        }
    }

    /// How the consumer reads the owner's answer; contract tests feed it recorded responses.
    public static func interpret(_ response: InternalResponse, from service: ServiceName) throws -> Value? {
        switch response.status.code {
        case 200: return try response.decode(Value.self)
        case 404: return nil
        default:
            throw ServiceError(
                .upstreamUnavailable, "The \(service.rawValue) service answered \(response.status.code).",
                headers: [.retryAfter: "1"])
        }
    }

    /// A lookup that answers from a fixed table, for tests.
    public static func fixed(_ values: [String: Value]) -> Lookup {
        Lookup { id in values[id] }
    }
}

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
