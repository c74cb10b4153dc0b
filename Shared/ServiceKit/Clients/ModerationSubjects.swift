import Contracts
import Foundation
import Hummingbird
import NIOHTTP1

/// `GET /internal/moderation-subjects/{type}/{id}[?viewer=]`, which feed, streak and alerts
/// each serve for the kinds of object they own (``ReportTargetType/owner``): an object as a
/// moderator judges it and, with `viewer`, only when that user can see it (a report names
/// only what its author was shown). Moderation is the only caller.
public struct ModerationSubjectsController: Sendable {
    /// The object of this kind and id (as `viewer` sees it, when given), or nil.
    public typealias Find = @Sendable (ReportTargetType, String, String?) async throws -> ModerationSubject?

    let owner: ServiceName
    let find: Find

    public init(owner: ServiceName, find: @escaping Find) {
        self.owner = owner
        self.find = find
    }

    public static let path = "/internal/moderation-subjects"

    public func addRoutes<Context: ServiceRequestContextProtocol>(to routes: ServiceRoutes<Context>) {
        routes.open.get("\(Self.path)/:type/:id", use: show)
    }

    @Sendable func show<Context: ServiceRequestContextProtocol>(
        _ request: Request, context: Context
    ) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: [.moderation])
        guard let type = ReportTargetType(rawValue: try context.parameters.require("type")), type.owner == owner
        else { throw ServiceError.notFound("Object") }
        let id = try ObjectID.path(context.parameters.require("id"), "Object")
        let viewer = try request.queryValue("viewer").map { try ObjectID.field(String($0), "viewer") }
        guard let subject = try await find(type, id, viewer) else { throw ServiceError.notFound("Object") }
        return try Response.json(subject)
    }

    /// The path moderation asks.
    public static func path(_ type: ReportTargetType, _ id: String, viewer: String?) -> String {
        "\(path)/\(type.rawValue)/\(id)" + (viewer.map { "?viewer=\($0)" } ?? "")
    }
}

/// How moderation finds an object: on its owner's ``ModerationSubjectsController``.
public struct ModerationSubjectLookup: Sendable {
    public let find: ModerationSubjectsController.Find

    public init(find: @escaping ModerationSubjectsController.Find) {
        self.find = find
    }

    /// The objects of these kinds and ids that exist, asked for all at once (one page of a
    /// queue), by id.
    public func findAll(_ targets: [(ReportTargetType, String)]) async throws -> [String: ModerationSubject] {
        try await withThrowingTaskGroup(of: ModerationSubject?.self) { group in
            for (type, id) in targets { group.addTask { try await find(type, id, nil) } }
            var found: [String: ModerationSubject] = [:]
            for try await subject in group { if let subject { found[subject.id] = subject } }
            return found
        }
    }

    /// Asks the owner of each kind over the internal client.
    public static func live(_ client: InternalClient) -> ModerationSubjectLookup {
        ModerationSubjectLookup { type, id, viewer in
            let response = try await client.send(
                .GET, to: type.owner, path: ModerationSubjectsController.path(type, id, viewer: viewer))
            return try Lookup<ModerationSubject>.interpret(response, from: type.owner)
        }
    }

    /// The objects of `subjects` (tests), each seen by everyone but those in `hiddenFrom`.
    public static func fixed(
        _ subjects: [ModerationSubject], hiddenFrom: [String: Set<String>] = [:]
    ) -> ModerationSubjectLookup {
        ModerationSubjectLookup { type, id, viewer in
            guard let subject = subjects.first(where: { $0.type == type && $0.id == id }) else { return nil }
            if let viewer, hiddenFrom[id]?.contains(viewer) == true { return nil }
            return subject
        }
    }
}
