import Contracts
import Foundation
import GRDB

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
        let id = entropy.uuid()
        let now = clock.now()
        let targets = subscribers(Event.eventType).filter { recipients?.contains($0) ?? true }
        guard !targets.isEmpty else { return id }
        let envelope = EventEnvelope(id: id, type: Event.eventType, source: source, occurredAt: now, payload: event)
        let body = try JSONCoding.sharedEncoder.encode(envelope)
        let seq = try OutboxEventRecord(
            id: id.uuidString.lowercased(), type: Event.eventType.rawValue, body: body, occurredAt: now
        ).insertPrepared(db)
        for target in targets {
            try OutboxDeliveryRecord(eventSeq: seq, subscriber: target.rawValue, nextAttemptAt: now).insertPrepared(db)
        }
        if !Event.deliversOnNextPoll {
            let doorbell = self.doorbell
            db.afterNextTransaction { _ in doorbell.ring() }
        }
        return id
    }
}
