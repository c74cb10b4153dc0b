import Foundation
import GRDB
import Hummingbird
import ServiceHTTP

/// `POST /internal/events`: where the outbox of other services delivers. Only callers with a
/// certificate from the local authority reach it, and only as the event's producer.
///
/// Events that arrive together are committed together (``GroupCommit``): a busy producer's
/// events cost one disk sync per group rather than one each.
public struct EventsController: Sendable {
    let inbox: EventInbox
    let commits: GroupCommit

    public init(inbox: EventInbox, database: DatabasePool) {
        self.inbox = inbox
        self.commits = GroupCommit.shared(for: database)
    }

    public func addRoutes<Context: ServiceRequestContextProtocol>(to routes: ServiceRoutes<Context>) {
        routes.open.post("/internal/events", use: receive)
    }

    @Sendable func receive(_ request: Request, context: some ServiceRequestContextProtocol) async throws -> Response {
        guard let peer = try await PeerIdentity.name(of: context.channel) else {
            throw ServiceError(.peerNotAllowed, "Internal routes need a service certificate.")
        }
        var request = request
        let body = try await request.collectBody(upTo: 1 << 20)
        let receipt = try await inbox.receive(Data(body.readableBytesView), from: peer, committing: commits)
        return try Response.json(["status": receipt.rawValue])
    }
}
