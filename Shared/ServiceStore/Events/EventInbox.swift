import Contracts
import Foundation
import GRDB
import Hummingbird
import NIOCore
import ServiceHTTP

/// Receives events and applies each event id at most once.
///
/// The handler runs inside the same transaction that records the event id in `kit_inbox`:
/// either both happen or neither does. A redelivered event finds its id already recorded
/// and is acknowledged without a second effect.
public struct EventInbox: Sendable {
    public typealias Apply = @Sendable (_ body: Data, _ db: Database) throws -> Void

    private var handlers: [EventType: Apply] = [:]
    let clock: any WallClock

    public init(clock: any WallClock) {
        self.clock = clock
    }

    /// Registers what to do with events of `type`.
    public mutating func on<Event: DomainEvent>(
        _ type: Event.Type, apply: @escaping @Sendable (EventEnvelope<Event>, Database) throws -> Void
    ) {
        handlers[Event.eventType] = { body, db in
            let envelope: EventEnvelope<Event>
            do {
                envelope = try JSONCoding.sharedDecoder.decode(EventEnvelope<Event>.self, from: body)
            } catch {
                throw ServiceError(.malformedRequest, "The \(Event.eventType) payload does not match the contract.")
            }
            try apply(envelope, db)
        }
    }

    /// The event types this inbox accepts.
    public var subscribedTypes: Set<EventType> { Set(handlers.keys) }

    /// What happened to a received event.
    public enum Receipt: String, Sendable {
        case applied
        case duplicate
    }

    /// Applies a received event body sent by `peer`, once.
    public func receive(_ body: Data, from peer: ServiceName, database: DatabasePool) async throws -> Receipt {
        try await database.tracedWrite(try transaction(receiving: body, from: peer))
    }

    /// Applies a received event body sent by `peer`, once, in the transaction of the events
    /// that arrive with it (``GroupCommit``: one disk sync for all of them).
    public func receive(_ body: Data, from peer: ServiceName, committing commits: GroupCommit) async throws -> Receipt {
        try await commits.write(try transaction(receiving: body, from: peer))
    }

    /// What became of one event of a batch (``receive(batch:from:committing:)``).
    public enum BatchReceipt: Sendable, Equatable {
        case applied
        case duplicate
        /// The event can never be applied here (a 4xx as a single delivery would answer): its
        /// error code. Nothing of it was written; the events after it were still taken.
        case refused(ErrorCode)
    }

    /// Applies the events of a batch sent by `peer`, in order, each once, in one transaction
    /// of the group (one disk sync for the lot), each in a savepoint of its own: one that is
    /// refused (a 4xx, as ``receive(_:from:committing:)`` would answer alone) is rolled back
    /// alone and the rest go on. An event that fails otherwise (a 5xx alone) is rolled back
    /// and ends the batch there: the receipts are those of the events before it, which
    /// commit, and the sender sends it and the rest again, so no event is ever applied after
    /// one before it that is still to come; `stopped` is why, for the log.
    public func receive(
        batch bodies: [Data], from peer: ServiceName, committing commits: GroupCommit
    ) async throws -> (receipts: [BatchReceipt], stopped: (any Error)?) {
        let prepared = bodies.map { body in
            Result { try transaction(receiving: body, from: peer) }
        }
        return try await commits.write { db in
            var receipts: [BatchReceipt] = []
            for event in prepared {
                do {
                    let receipt = try GroupCommit.savepoint(in: db) { try event.get()(db) }
                    receipts.append(receipt == .duplicate ? .duplicate : .applied)
                } catch let error as ServiceError where Self.refuses(error) {
                    receipts.append(.refused(error.code))
                } catch {
                    return (receipts, error)
                }
            }
            return (receipts, nil)
        }
    }

    /// Whether a single delivery failing with `error` would be parked rather than retried
    /// (a 4xx other than 408 and 429, as ``OutboxDispatcher`` reads answers).
    static func refuses(_ error: ServiceError) -> Bool {
        (400..<500).contains(error.status.code) && ![408, 429].contains(error.status.code)
    }

    /// What receiving `body` writes: the event's id in `kit_inbox` and its handler's effect,
    /// unless the id is there already. Throws now for a body that is not an event this
    /// service takes from `peer`.
    private func transaction(
        receiving body: Data, from peer: ServiceName
    ) throws -> @Sendable (Database) throws -> Receipt {
        let header: EventHeader
        do {
            header = try JSONCoding.sharedDecoder.decode(EventHeader.self, from: body)
        } catch {
            throw ServiceError(.malformedRequest, "The body is not an event envelope.")
        }
        guard header.source == peer else {
            throw ServiceError(.peerNotAllowed, "Events from \(header.source.rawValue) must be sent by it.")
        }
        if let producers = EventCatalog.producers[header.type], !producers.contains(peer) {
            throw ServiceError(
                .peerNotAllowed,
                "\(header.type) events come only from \(producers.map(\.rawValue).sorted().joined(separator: ", ")).")
        }
        guard let apply = handlers[header.type] else {
            throw ServiceError(.unknownEventType, "This service does not subscribe to \(header.type).")
        }
        let now = clock.now()
        return { db in
            let id = header.id.uuidString.lowercased()
            if try InboxEventRecord.applied(id, in: db) { return .duplicate }
            try InboxEventRecord(
                eventId: id, type: header.type.rawValue, source: header.source.rawValue, appliedAt: now
            ).insert(db)
            try apply(body, db)
            return .applied
        }
    }
}
