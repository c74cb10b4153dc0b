import Contracts
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

/// Events sent several to a request (`/internal/events/batch`): in order, each once, a refused
/// one parked alone, a failing one ending the batch there, and single events to a subscriber
/// that does not take batches.
@Suite(.serialized) struct EventBatchTests {
    /// What a subscriber saw: the route of each delivery, and whether a ping labelled `fail`
    /// fails (a 500, as a bug or a full disk would).
    final class Seen: Sendable {
        let routes = Mutex<[String]>([])
        let failing: Atomic<Bool>

        init(failing: Bool = false) {
            self.failing = Atomic(failing)
        }

        var list: [String] { routes.withLock { $0 } }
    }

    /// A subscriber (alerts) recording each applied ping in its own database. A ping labelled
    /// `refuse` is refused (400). Without `takesBatches` it has only the single route, as a
    /// build from before batches.
    struct Subscriber {
        let database: DatabasePool
        let running: RunningApplication

        static func start(
            directory: TestDataDirectory, port: Int, seen: Seen, takesBatches: Bool = true
        ) async throws -> Subscriber {
            let runtime = try ServiceRuntime(name: .alerts, reader: directory.reader(["http.port": "\(port)"]))
            let database = try OutboxTests.Subscriber.openPings(runtime)
            var inbox = EventInbox(clock: runtime.clock)
            inbox.on(Pinged.self) { envelope, db in
                switch envelope.payload.label {
                case "refuse": throw ServiceError(.validationFailed, "Not this one.")
                case "fail" where seen.failing.load(ordering: .relaxed): throw CocoaError(.fileWriteUnknown)
                default:
                    try db.execute(sql: "INSERT INTO ping (label) VALUES (?)", arguments: [envelope.payload.label])
                }
            }
            let (router, routes) = runtime.makeRoutes(database: database)
            let controller = EventsController(inbox: inbox, database: database)
            routes.open.post("/internal/events") { request, context in
                seen.routes.withLock { $0.append("single") }
                return try await controller.receive(request, context: context)
            }
            if takesBatches {
                routes.open.post("/internal/events/batch") { request, context in
                    seen.routes.withLock { $0.append("batch") }
                    return try await controller.receiveBatch(request, context: context)
                }
            }
            let running = try await RunningApplication.start(try runtime.makeApplication(ServiceParts(router: router)))
            return Subscriber(database: database, running: running)
        }

        func labels() async throws -> [String] {
            try await OutboxTests.Subscriber.labels(in: database)
        }
    }

    /// Feed's side: a database with an outbox sending pings to alerts on `port`.
    struct Producer {
        let runtime: ServiceRuntime
        let database: DatabasePool
        let outbox: Outbox

        /// `connectTimeoutMs` short where the subscriber starts down (its attempts fail fast).
        init(directory: TestDataDirectory, port: Int, connectTimeoutMs: Int = 5_000) throws {
            runtime = try ServiceRuntime(
                name: .feed,
                reader: directory.reader([
                    "services.alerts.url": "https://127.0.0.1:\(port)",
                    "client.connectTimeoutMs": "\(connectTimeoutMs)",
                ]))
            database = try runtime.openDatabase { _ in }
            outbox = Outbox(source: .feed, clock: runtime.clock, entropy: runtime.entropy) { _ in [.alerts] }
        }

        /// Stores pings, all in one transaction.
        func ping(_ labels: String...) async throws {
            try await database.write { db in
                for label in labels { try outbox.enqueue(Pinged(label: label), in: db) }
            }
        }

        /// Runs a dispatcher until `body` returns.
        func dispatching<T>(_ body: (OutboxDispatcher) async throws -> T) async throws -> T {
            let dispatcher = OutboxDispatcher(
                database: database, client: runtime.client, outbox: outbox, pollInterval: .milliseconds(50),
                maxBackoff: 0.4, logger: runtime.logger)
            let group = ServiceGroup(services: [dispatcher], logger: runtime.logger)
            let task = Task { try await group.run() }
            defer { task.cancel() }
            let value = try await body(dispatcher)
            await group.triggerGracefulShutdown()
            _ = try? await task.value
            return value
        }

        /// Each delivery's attempts and whether it is dead, in the queue's order.
        func deliveries() async throws -> [(attempts: Int, dead: Bool)] {
            try await database.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT attempts, dead_at IS NOT NULL AS dead FROM kit_outbox_delivery ORDER BY event_seq"
                ).map { ($0["attempts"], $0["dead"]) }
            }
        }
    }

    @Test func eventsThatWaitedGoInOneBatchInOrderEachOnceARefusedOneParkedAlone() async throws {
        try await withTestDataDirectory { directory in
            let port = try FreePort.next()
            let producer = try Producer(directory: directory, port: port, connectTimeoutMs: 300)
            let seen = Seen()
            for label in ["a", "b", "refuse", "c", "d"] { try await producer.ping(label) }
            try await producer.dispatching { (_: OutboxDispatcher) async throws in
                // The subscriber is down: the head is tried and backs off, the rest wait.
                #expect(try await eventually { try await producer.deliveries().first?.attempts ?? 0 >= 1 })
                let subscriber = try await Subscriber.start(directory: directory, port: port, seen: seen)
                #expect(try await eventually { try await subscriber.labels() == ["a", "b", "c", "d"] })
                #expect(
                    try await eventually { try await producer.deliveries().map(\.dead) == [true] },
                    "the refused event is parked, the others forgotten")
                try await Task.sleep(for: .milliseconds(300))
                #expect(try await subscriber.labels() == ["a", "b", "c", "d"])
                #expect(seen.list == ["batch"], "five events in one request")
                await subscriber.running.stop()
            }
        }
    }

    @Test func aFailingEventEndsTheBatchThereAndIsSentAgainBeforeTheRest() async throws {
        try await withTestDataDirectory { directory in
            let port = try FreePort.next()
            let producer = try Producer(directory: directory, port: port)
            let seen = Seen(failing: true)
            let subscriber = try await Subscriber.start(directory: directory, port: port, seen: seen)
            try await producer.ping("a", "fail", "b")
            try await producer.dispatching { (_: OutboxDispatcher) async throws in
                // a is taken; fail is tried again and again, and b waits behind it.
                #expect(
                    try await eventually {
                        let attempts = try await producer.deliveries().map(\.attempts)
                        return attempts.count == 2 && attempts[0] >= 2
                    })
                #expect(try await subscriber.labels() == ["a"], "b is not applied before the event ahead of it")
                #expect(try await producer.deliveries().map(\.attempts).last == 0)
                seen.failing.store(false, ordering: .relaxed)
                #expect(try await eventually { try await subscriber.labels() == ["a", "fail", "b"] })
                #expect(try await eventually { try await producer.deliveries().isEmpty })
            }
            // The first batch (a taken, stopped at fail) and the last (fail and b) at least.
            #expect(seen.list.allSatisfy { $0 == "batch" } && seen.list.count >= 2)
            await subscriber.running.stop()
        }
    }

    @Test func aSubscriberWithoutTheBatchRouteIsSentSingleEventsAndNothingIsParked() async throws {
        try await withTestDataDirectory { directory in
            let port = try FreePort.next()
            let producer = try Producer(directory: directory, port: port)
            let seen = Seen()
            let subscriber = try await Subscriber.start(
                directory: directory, port: port, seen: seen, takesBatches: false)
            try await producer.ping("a", "b", "c")
            try await producer.dispatching { (dispatcher: OutboxDispatcher) async throws in
                #expect(try await eventually { try await subscriber.labels() == ["a", "b", "c"] })
                #expect(try await eventually { try await producer.deliveries().isEmpty }, "none parked as dead")
                #expect(dispatcher.batchless.refuses(.alerts, at: producer.runtime.clock.now()))
            }
            #expect(seen.list == ["single", "single", "single"])
            await subscriber.running.stop()
        }
    }

    /// The route itself, called as feed: a duplicate and a line that is not an envelope get
    /// their receipts and the events after them are still applied; an empty batch is a 400.
    @Test func theBatchRouteAnswersAReceiptForEachEventInOrder() async throws {
        try await withTestDataDirectory { directory in
            let port = try FreePort.next()
            let producer = try Producer(directory: directory, port: port)
            let subscriber = try await Subscriber.start(directory: directory, port: port, seen: Seen())
            // It listens a moment after it starts (a CI run's first call was refused).
            #expect(
                await eventually {
                    let health = try? await producer.runtime.client.send(.GET, to: .alerts, path: "/health/live")
                    return health?.status.code == 200
                })
            try await producer.ping("x", "y")
            let bodies = try await producer.database.read { db in
                try Data.fetchAll(db, sql: "SELECT body FROM kit_outbox_event ORDER BY seq")
            }
            func send(_ lines: [Data]) async throws -> InternalResponse {
                var body = ByteBuffer()
                for line in lines { body.writeBytes(line + Data("\n".utf8)) }
                return try await producer.runtime.client.send(
                    .POST, to: .alerts, path: "/internal/events/batch", body: body,
                    headers: ["content-type": "application/x-ndjson"])
            }
            let answer = try await send([bodies[0], bodies[0], Data("{not json".utf8), bodies[1]])
            #expect(answer.status.code == 200)
            let receipts = try JSONDecoder().decode(BatchAnswer.self, from: Data(answer.body.readableBytesView))
                .receipts.map { [$0.status, $0.code?.rawValue ?? ""] }
            #expect(
                receipts == [["applied", ""], ["duplicate", ""], ["refused", "MALFORMED_REQUEST"], ["applied", ""]])
            #expect(try await subscriber.labels() == ["x", "y"])
            let empty = try await send([])
            #expect(empty.status.code == 400 && empty.errorEnvelope?.error.code == .validationFailed)
            await subscriber.running.stop()
        }
    }
}
