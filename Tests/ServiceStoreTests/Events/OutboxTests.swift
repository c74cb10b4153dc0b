import AsyncHTTPClient
import Foundation
import GRDB
import Hummingbird
import NIOCore
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

@testable import ServiceHTTP
@testable import ServiceStore

/// A test-only event: the catalog of real events lives in Contracts; this one is routed by the
/// test's own subscriber table.
struct Pinged: DomainEvent, Equatable {
    static let eventType: EventType = "test.pinged"
    var label: String
}

@Suite(.serialized) struct OutboxTests {
    /// A subscriber service that records each applied ping, in its own database.
    struct Subscriber {
        let runtime: ServiceRuntime
        let database: DatabasePool
        let running: RunningApplication

        static func start(
            directory: TestDataDirectory, port: Int, as name: ServiceName = .alerts
        ) async throws -> Subscriber {
            let runtime = try ServiceRuntime(name: name, reader: directory.reader(["http.port": "\(port)"]))
            let database = try openPings(runtime)
            var inbox = EventInbox(clock: runtime.clock)
            inbox.on(Pinged.self) { envelope, db in
                try db.execute(sql: "INSERT INTO ping (label) VALUES (?)", arguments: [envelope.payload.label])
            }
            let (router, routes) = runtime.makeRoutes(database: database)
            EventsController(inbox: inbox, database: database).addRoutes(to: routes)
            let running = try await RunningApplication.start(try runtime.makeApplication(ServiceParts(router: router)))
            return Subscriber(runtime: runtime, database: database, running: running)
        }

        func stop() async {
            await running.stop()
        }

        func labels() async throws -> [String] {
            try await Subscriber.labels(in: database)
        }

        /// A subscriber's database: one table, `ping`, of the labels it applied in order.
        static func openPings(_ runtime: ServiceRuntime) throws -> DatabasePool {
            try runtime.openDatabase { migrator in
                migrator.registerMigration("test.pings") { db in
                    try db.create(table: "ping") { table in
                        table.autoIncrementedPrimaryKey("seq")
                        table.column("label", .text).notNull()
                    }
                }
            }
        }

        /// The labels applied, in order.
        static func labels(in database: DatabasePool) async throws -> [String] {
            try await database.read { db in try String.fetchAll(db, sql: "SELECT label FROM ping ORDER BY seq") }
        }
    }

    @Test func aSubscriberThatWasDownGetsEveryEventExactlyOnceInOrder() async throws {
        try await withTestDataDirectory { directory in
            let port = try FreePort.next()
            let urls = ["services.alerts.url": "https://127.0.0.1:\(port)", "client.connectTimeoutMs": "300"]

            // The producer: its own database, an outbox routing test.pinged to alerts, a dispatcher.
            let producer = try ServiceRuntime(name: .feed, reader: directory.reader(urls))
            let producerDB = try producer.openDatabase { _ in }
            let outbox = Outbox(source: .feed, clock: producer.clock, entropy: producer.entropy) { _ in [.alerts] }
            let dispatcher = OutboxDispatcher(
                database: producerDB, client: producer.client, outbox: outbox, pollInterval: .milliseconds(50),
                maxBackoff: 0.4, logger: producer.logger)
            let dispatching = ServiceGroup(services: [dispatcher], logger: producer.logger)
            let dispatchTask = Task { try await dispatching.run() }
            defer { dispatchTask.cancel() }

            var subscriber = try await Subscriber.start(directory: directory, port: port)
            _ = try await producerDB.write { db in try outbox.enqueue(Pinged(label: "a"), in: db) }
            #expect(try await eventually { try await subscriber.labels() == ["a"] })

            await subscriber.stop()
            _ = try await producerDB.write { db in try outbox.enqueue(Pinged(label: "b"), in: db) }
            _ = try await producerDB.write { db in try outbox.enqueue(Pinged(label: "c"), in: db) }
            // A transaction that rolls back takes its event with it.
            struct Abort: Error {}
            _ = try? await producerDB.write { db in
                try outbox.enqueue(Pinged(label: "rolled-back"), in: db)
                throw Abort()
            }
            // While the subscriber is down the dispatcher keeps retrying the head of the queue
            // (backing off) and holds the later event back, so order is kept.
            #expect(
                try await eventually {
                    try await producerDB.read { db in
                        try Int.fetchOne(db, sql: "SELECT MAX(attempts) FROM kit_outbox_delivery") ?? 0
                    } >= 2
                })
            let attempts = try await producerDB.read { db in
                try Int.fetchAll(db, sql: "SELECT attempts FROM kit_outbox_delivery ORDER BY event_seq")
            }
            #expect(attempts.count == 2 && attempts[1] == 0)
            #expect(
                try await producerDB.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM kit_outbox_event") }
                    == 2)

            subscriber = try await Subscriber.start(directory: directory, port: port)
            #expect(try await eventually { try await subscriber.labels() == ["a", "b", "c"] })
            #expect(
                try await eventually {
                    try await producerDB.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM kit_outbox_event")
                    } == 0
                })
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await subscriber.labels() == ["a", "b", "c"])

            await subscriber.stop()
            await dispatching.triggerGracefulShutdown()
            _ = try? await dispatchTask.value
        }
    }

    /// Alerts (first in the queue's order) is down with more than a batch waiting: moderation
    /// still gets every event, in order.
    @Test func aSubscriberThatIsDownHoldsUpOnlyItself() async throws {
        try await withTestDataDirectory { directory in
            let (down, up) = (try FreePort.next(), try FreePort.next())
            let urls = [
                "services.alerts.url": "https://127.0.0.1:\(down)",
                "services.moderation.url": "https://127.0.0.1:\(up)",
            ]
            let producer = try ServiceRuntime(name: .feed, reader: directory.reader(urls))
            let producerDB = try producer.openDatabase { _ in }
            let outbox = Outbox(source: .feed, clock: producer.clock, entropy: producer.entropy) { _ in
                [.alerts, .moderation]
            }
            let labels = (0..<250).map { "p\($0)" }
            _ = try await producerDB.write { db in
                for label in labels { try outbox.enqueue(Pinged(label: label), in: db) }
            }
            let subscriber = try await Subscriber.start(directory: directory, port: up, as: .moderation)
            let dispatcher = OutboxDispatcher(
                database: producerDB, client: producer.client, outbox: outbox, pollInterval: .milliseconds(50),
                maxBackoff: 60, logger: producer.logger)
            let dispatching = ServiceGroup(services: [dispatcher], logger: producer.logger)
            let dispatchTask = Task { try await dispatching.run() }
            // 250 deliveries over mutual TLS in a debug build: seconds when idle, but two
            // loaded CI runs took longer than the default 45 s.
            #expect(
                try await eventually(timeout: .seconds(150)) { try await subscriber.labels().count == labels.count })
            #expect(try await subscriber.labels() == labels)
            // Once each answer is in, the producer forgets the delivery: only alerts' remain.
            #expect(
                try await eventually {
                    try await producerDB.read { db in
                        try String.fetchAll(db, sql: "SELECT DISTINCT subscriber FROM kit_outbox_delivery")
                    } == ["alerts"]
                })
            // What the alert rules read: alerts' backlog, its oldest event's age (the first
            // event made to have happened ten minutes ago) and one given up on; none for
            // moderation.
            try await producerDB.write { db in
                try db.execute(
                    sql:
                        "UPDATE kit_outbox_event SET occurred_at = ? WHERE seq = (SELECT MIN(seq) FROM kit_outbox_event)",
                    arguments: [Date().addingTimeInterval(-600)])
                try db.execute(
                    sql: """
                        UPDATE kit_outbox_delivery SET dead_at = ?
                        WHERE event_seq = (SELECT MAX(event_seq) FROM kit_outbox_delivery)
                        """, arguments: [Date()])
            }
            let backlog = try await dispatcher.backlog()
            #expect(backlog["moderation"] == nil)
            let alerts = try #require(backlog["alerts"])
            #expect(alerts.pending == labels.count - 1 && alerts.dead == 1)
            #expect(alerts.oldestPendingAge > 590 && alerts.oldestPendingAge < 3600, "\(alerts)")
            await dispatching.triggerGracefulShutdown()
            _ = try? await dispatchTask.value
            await subscriber.stop()
        }
    }

    @Test func aRedeliveredEventHasNoSecondEffectAndOnlyItsProducerMaySendIt() async throws {
        try await withTestDataDirectory { directory in
            let port = try FreePort.next()
            let subscriber = try await Subscriber.start(directory: directory, port: port)
            let envelope = EventEnvelope(
                id: UUID(), type: Pinged.eventType, source: .feed, occurredAt: Date(), payload: Pinged(label: "once"))
            try await TestHTTP.withClient(dataDirectory: directory.url, identity: .feed) { asFeed in
                try await TestHTTP.withClient(dataDirectory: directory.url, identity: .media) { asMedia in
                    let url = "https://127.0.0.1:\(port)/internal/events"
                    #expect(
                        await eventually {
                            (try? await asFeed.call(.GET, "https://127.0.0.1:\(port)/health/live").status) == 200
                        })

                    let first = try await asFeed.call(.POST, url, json: envelope)
                    #expect(first.status == 200)
                    #expect(first.text.contains("applied"))
                    let second = try await asFeed.call(.POST, url, json: envelope)
                    #expect(second.status == 200)
                    #expect(second.text.contains("duplicate"))
                    #expect(try await subscriber.labels() == ["once"])

                    let impostor = try await asMedia.call(.POST, url, json: envelope)
                    #expect(impostor.status == 403)
                    #expect(impostor.errorCode == .peerNotAllowed)

                    var unknown = envelope
                    unknown.id = UUID()
                    unknown.type = "test.unknown"
                    let refused = try await asFeed.call(.POST, url, json: unknown)
                    #expect(refused.status == 422)
                    #expect(refused.errorCode == .unknownEventType)
                    #expect(try await subscriber.labels() == ["once"])
                }
            }
            await subscriber.stop()
        }
    }

    @Test func aPeerWithoutACertificateFromTheAuthorityFailsTheHandshake() async throws {
        try await withTestDataDirectory { directory in
            let port = try FreePort.next()
            let subscriber = try await Subscriber.start(directory: directory, port: port)
            try await TestHTTP.withClient(dataDirectory: directory.url, identity: .feed) { withCertificate in
                #expect(
                    await eventually {
                        (try? await withCertificate.call(.GET, "https://127.0.0.1:\(port)/health/live").status) == 200
                    })
            }
            _ = try await TestHTTP.withClient(dataDirectory: directory.url, identity: nil) { anonymous in
                await #expect(throws: (any Error).self) {
                    _ = try await anonymous.call(.GET, "https://127.0.0.1:\(port)/health/live")
                }
            }
            await subscriber.stop()
        }
    }

    @Test func anEventForNamedRecipientsGoesOnlyToThoseTheCatalogLists() async throws {
        try await withTestDataDirectory { directory in
            let runtime = try ServiceRuntime(name: .media, reader: directory.reader([:]))
            let database = try runtime.openDatabase { _ in }
            let outbox = Outbox(source: .media, clock: runtime.clock, entropy: runtime.entropy) { _ in
                [.feed, .streak]
            }
            func recipients(_ to: Set<ServiceName>?) async throws -> [String] {
                try await database.write { db in
                    let id = try outbox.enqueue(Pinged(label: "x"), to: to, in: db)
                    return try String.fetchAll(
                        db,
                        sql: """
                            SELECT d.subscriber FROM kit_outbox_delivery d JOIN kit_outbox_event e ON e.seq = d.event_seq
                            WHERE e.id = ? ORDER BY d.subscriber
                            """, arguments: [id.uuidString.lowercased()])
                }
            }
            #expect(try await recipients(nil) == ["feed", "streak"])
            #expect(try await recipients([.feed]) == ["feed"])
            #expect(try await recipients([.streak, .alerts]) == ["streak"])
            #expect(try await recipients([.alerts]) == [])
        }
    }

    @Test func eventIdsSortByTimeAndATransactionRingsOnceItCommits() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)/a.sqlite")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let database = try ServiceDatabase.open(at: file) { _ in }
        let clock = ManualClock(try Date("2026-11-27T10:00:00.123Z", strategy: .iso8601))
        let outbox = Outbox(source: .feed, clock: clock, entropy: SeededEntropy(seed: "ids")) { _ in [.alerts] }

        // Version 7: the first 48 bits are the milliseconds, so later ids sort later.
        var ids: [String] = []
        for step in [0.0, 0.001, 0.001, 1] {
            clock.advance(by: step)
            ids.append(try outbox.prepare(Pinged(label: "\(step)")).id.uuidString.lowercased())
        }
        #expect(ids.allSatisfy { Array($0)[14] == "7" })
        #expect(ids[0].hasPrefix("01a21c72-917b"))  // 1,795,773,600,123 ms
        #expect(ids[1] > ids[0] && ids[2] > ids[0] && ids[3] > max(ids[1], ids[2]))

        // A rolled-back transaction rings nothing and leaves the bell ready for the next one; a
        // transaction of many events rings once, when it commits.
        let rings = Mutex(0)
        let listening = Task {
            for await _ in outbox.doorbell.rings { rings.withLock { $0 += 1 } }
        }
        defer { listening.cancel() }
        struct Abort: Error {}
        _ = try? await database.write { db in
            try outbox.enqueue(Pinged(label: "never"), in: db)
            throw Abort()
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(rings.withLock { $0 } == 0)
        try await database.write { db in
            for label in 0..<200 { try outbox.enqueue(Pinged(label: "\(label)"), in: db) }
        }
        #expect(await eventually { rings.withLock { $0 } == 1 })
        let stored = try await database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM kit_outbox_event")
        }
        #expect(stored == 200)
    }

    @Test func retriesBackOffExponentiallyWithJitterUpToTheCap() throws {
        let runtimeless = OutboxDispatcherBackoff(maxBackoff: 60)
        for attempt in 1...12 {
            let delay = runtimeless.delay(attempt)
            let base = min(60, 0.5 * pow(2, Double(attempt - 1)))
            #expect(delay >= base * 0.75 && delay <= base * 1.25, "attempt \(attempt): \(delay)")
        }
    }
}

/// Exposes the dispatcher's backoff rule without a database.
struct OutboxDispatcherBackoff {
    let maxBackoff: TimeInterval
    func delay(_ attempts: Int) -> TimeInterval {
        OutboxDispatcher.backoff(
            afterAttempts: attempts, maxBackoff: maxBackoff, jitter: SystemEntropy().unitInterval())
    }
}
