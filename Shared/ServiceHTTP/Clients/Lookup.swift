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

    /// The objects with these ids that exist, asked for all at once (one page of a list).
    public func findAll(_ ids: [String]) async throws -> [String: Value] {
        try await withThrowingTaskGroup(of: (String, Value?).self) { group in
            for id in Set(ids) { group.addTask { (id, try await find(id)) } }
            var found: [String: Value] = [:]
            for try await (id, value) in group { found[id] = value }
            return found
        }
    }

    /// A lookup that answers from a fixed table, for tests.
    public static func fixed(_ values: [String: Value]) -> Lookup {
        Lookup { id in values[id] }
    }
}
