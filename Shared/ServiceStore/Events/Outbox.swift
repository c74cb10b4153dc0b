import Contracts
import Foundation
import GRDB
import ServiceHTTP

/// Writes events in the same transaction as the change they describe.
///
/// An event written with ``enqueue(_:in:)`` is stored with one delivery row per subscriber
/// listed in ``EventCatalog``. If the transaction rolls back, the event never existed; if it
/// commits, ``OutboxDispatcher`` delivers it, retrying until each subscriber acknowledges.
public struct Outbox: Sendable {
    let source: ServiceName
    let subscribers: @Sendable (EventType) -> [ServiceName]
    let clock: any WallClock
    let entropy: any Entropy
    let doorbell: Doorbell

    /// An outbox for events produced by `source`.
    public init(
        source: ServiceName, clock: any WallClock, entropy: any Entropy,
        subscribers: @escaping @Sendable (EventType) -> [ServiceName] = EventCatalog.subscribers(of:)
    ) {
        self.source = source
        self.subscribers = subscribers
        self.clock = clock
        self.entropy = entropy
        self.doorbell = Doorbell()
    }

    /// Stores `event` for delivery, inside the caller's write transaction. Returns its id.
    ///
    /// With `recipients`, only those of the catalog's subscribers receive it (an event meant
    /// for the services that referenced something, say); a recipient the catalog does not
    /// list for the type is never sent anything.
    @discardableResult
    public func enqueue<Event: DomainEvent>(
        _ event: Event, to recipients: Set<ServiceName>? = nil, in db: Database
    ) throws -> UUID {
        let prepared = try prepare(event, to: recipients)
        try store(prepared, in: db)
        return prepared.id
    }

    /// `event` made ready to store, its id drawn and its JSON encoded, outside any transaction:
    /// a job that writes many events encodes them before it takes the writer.
    public func prepare<Event: DomainEvent>(
        _ event: Event, to recipients: Set<ServiceName>? = nil
    ) throws -> PreparedEvent {
        let now = clock.now()
        // Time-ordered: each new id goes at the end of the id indexes (here and in every
        // subscriber's inbox) instead of into a random page of them.
        let id = entropy.uuid(at: now)
        let targets = subscribers(Event.eventType).filter { recipients?.contains($0) ?? true }
        let envelope = EventEnvelope(id: id, type: Event.eventType, source: source, occurredAt: now, payload: event)
        return PreparedEvent(
            id: id, type: Event.eventType,
            body: targets.isEmpty ? Data() : try JSONCoding.sharedEncoder.encode(envelope),
            occurredAt: now, targets: targets, ringsAtCommit: !Event.deliversOnNextPoll)
    }

    /// Stores a prepared event for delivery, inside the caller's write transaction.
    public func store(_ event: PreparedEvent, in db: Database) throws {
        guard !event.targets.isEmpty else { return }
        let seq = try OutboxEventRecord(
            id: event.id.uuidString.lowercased(), type: event.type.rawValue, body: event.body,
            occurredAt: event.occurredAt
        ).insertPrepared(db)
        for target in event.targets {
            try OutboxDeliveryRecord(eventSeq: seq, subscriber: target.rawValue, nextAttemptAt: event.occurredAt)
                .insertPrepared(db)
        }
        if event.ringsAtCommit { doorbell.ring(afterCommitOf: db) }
    }
}

/// An event ready for ``Outbox/store(_:in:)``: made by ``Outbox/prepare(_:to:)``.
public struct PreparedEvent: Sendable {
    public let id: UUID
    let type: EventType
    let body: Data
    let occurredAt: Date
    let targets: [ServiceName]
    let ringsAtCommit: Bool
}
