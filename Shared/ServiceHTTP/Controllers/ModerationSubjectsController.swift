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
