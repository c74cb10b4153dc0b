import Foundation
import GRDB
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import AlertsService

/// Alerts' inbox over a built router's own database and live streams, for tests that feed it
/// events directly instead of through `/internal/events`.
struct AlertsEventFeed: Sendable {
    let inbox: EventInbox
    let database: DatabasePool
    let streams: LiveStreams
    let clock: any WallClock

    init(parts: ServiceParts<ServiceRequestContext>, clock: any WallClock) throws {
        database = try #require(parts.services.compactMap { $0 as? JobRunner }.first).database
        streams = try #require(parts.services.compactMap { $0 as? LiveStreams }.first)
        inbox = AlertsInbox.make(
            jobs: JobQueue(clock: clock), streams: streams,
            duressReach: AlertsStore.DuressReach(radius: 1000, positionMaxAge: 1800), clock: clock)
        self.clock = clock
    }

    /// Applies an event through the inbox, as `/internal/events` does; returns its id.
    @discardableResult
    func deliver(_ payload: some DomainEvent, from source: ServiceName) async throws -> String {
        let envelope = EventEnvelope(
            id: UUID(), type: type(of: payload).eventType, source: source, occurredAt: clock.now(), payload: payload)
        _ = try await inbox.receive(try JSONCoding.encoder().encode(envelope), from: source, database: database)
        return envelope.id.uuidString.lowercased()
    }
}
