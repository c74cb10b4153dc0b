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
        routes.open.post("/internal/events/batch", use: receiveBatch)
    }

    /// Most events in one batch, and most bytes in its body.
    static let batchLimit = (events: 256, bytes: 4 << 20)

    @Sendable func receive(_ request: Request, context: some ServiceRequestContextProtocol) async throws -> Response {
        guard let peer = try await PeerIdentity.name(of: context.channel) else {
            throw ServiceError(.peerNotAllowed, "Internal routes need a service certificate.")
        }
        var request = request
        let body = try await request.collectBody(upTo: 1 << 20)
        let receipt = try await inbox.receive(Data(body.readableBytesView), from: peer, committing: commits)
        return try Response.json(["status": receipt.rawValue])
    }

    /// `POST /internal/events/batch`: several events of one producer, one envelope a line
    /// (`application/x-ndjson`), applied in order in one transaction
    /// (``EventInbox/receive(batch:from:committing:)``). Answers a receipt for each event
    /// taken, in order: `{"receipts": [{"status": "applied"}, {"status": "refused", "code":
    /// "MALFORMED_REQUEST"}, …]}`; fewer receipts than events means the rest are to be sent
    /// again, from the first without one.
    @Sendable func receiveBatch(
        _ request: Request, context: some ServiceRequestContextProtocol
    ) async throws -> Response {
        guard let peer = try await PeerIdentity.name(of: context.channel) else {
            throw ServiceError(.peerNotAllowed, "Internal routes need a service certificate.")
        }
        var request = request
        let body = try await request.collectBody(upTo: Self.batchLimit.bytes)
        let lines = body.readableBytesView.split(separator: UInt8(ascii: "\n")).map { Data($0) }
        guard !lines.isEmpty, lines.count <= Self.batchLimit.events else {
            throw ServiceError(
                .validationFailed, "A batch holds 1 to \(Self.batchLimit.events) events, one envelope a line.")
        }
        let (receipts, stopped) = try await inbox.receive(batch: lines, from: peer, committing: commits)
        if let stopped {
            context.logger.failure(
                "event failed; its batch stopped there", error: stopped,
                metadata: ["peer": "\(peer.rawValue)", "taken": "\(receipts.count)", "sent": "\(lines.count)"])
        }
        return try Response.json(BatchAnswer(receipts: receipts.map(BatchAnswer.Receipt.init)))
    }
}

/// The answer to a batch of events: what became of each, in order.
struct BatchAnswer: Codable, Sendable {
    struct Receipt: Codable, Sendable, Equatable {
        /// `applied`, `duplicate` or `refused`.
        var status: String
        /// Why a refused event is refused.
        var code: ErrorCode?

        init(_ receipt: EventInbox.BatchReceipt) {
            switch receipt {
            case .applied: self.status = "applied"
            case .duplicate: self.status = "duplicate"
            case .refused(let code): (self.status, self.code) = ("refused", code)
            }
        }
    }

    var receipts: [Receipt]
}
