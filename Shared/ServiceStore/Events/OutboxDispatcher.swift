import Contracts
import Foundation
import GRDB
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import ServiceHTTP
import ServiceLifecycle
import Synchronization
import Tracing

/// Delivers stored events to their subscribers over mutual-TLS HTTP/2.
///
/// Per subscriber, events go out in the order they were written, those waiting together in
/// one request (``batchable(_:due:to:)``: a lone event goes alone, and nothing waits to make a
/// batch; while one request is out, what is committed meanwhile queues for the next); a failure
/// stops that subscriber's queue until its retry time (exponential backoff with jitter,
/// capped), so a subscriber never sees a later event before an earlier one. A subscriber that
/// refuses an event outright (a 4xx other than 408 and 429) cannot be helped by retrying: the
/// event is parked as dead, logged and counted, and the queue moves on. Nothing is dropped.
public struct OutboxDispatcher: Service {
    let database: DatabasePool
    let client: InternalClient
    let outbox: Outbox
    let pollInterval: Duration
    let maxBackoff: TimeInterval
    let logger: Logger
    let batchSize = 200
    let batchless = Batchless()

    public init(
        database: DatabasePool, client: InternalClient, outbox: Outbox, pollInterval: Duration = .milliseconds(500),
        maxBackoff: TimeInterval = 60, logger: Logger
    ) {
        self.database = database
        self.client = client
        self.outbox = outbox
        self.pollInterval = pollInterval
        self.maxBackoff = maxBackoff
        self.logger = logger
    }

    public func run() async {
        let doorbell = outbox.doorbell
        let gauges = JobRunner.GaugeSchedule(interval: .seconds(15))
        await PeriodicService(interval: pollInterval, doorbell: doorbell) {
            if await deliverDue() { doorbell.ring() }
            await recordGauges(gauges)
        }.run()
    }

    /// Per subscriber: events not yet delivered, how long ago the oldest of them happened,
    /// and those given up on.
    public struct Backlog: Sendable, Equatable {
        public var pending = 0
        public var oldestPendingAge: TimeInterval = 0
        public var dead = 0
    }

    /// What is waiting for each subscriber that has anything (each an index range of
    /// `kit_outbox_delivery_due`, not a scan of the outbox).
    public func backlog() async throws -> [String: Backlog] {
        let now = outbox.clock.now()
        return try await database.tracedRead { db in
            var backlog: [String: Backlog] = [:]
            for subscriber in ServiceName.services.map(\.rawValue) {
                let pending =
                    try Int.fetchOne(
                        db.cachedStatement(
                            sql: "SELECT COUNT(*) FROM kit_outbox_delivery WHERE subscriber = ? AND dead_at IS NULL"),
                        arguments: [subscriber]) ?? 0
                let dead =
                    try Int.fetchOne(
                        db.cachedStatement(
                            sql: "SELECT COUNT(*) FROM kit_outbox_delivery WHERE subscriber = ? AND dead_at IS NOT NULL"
                        ),
                        arguments: [subscriber]) ?? 0
                guard pending + dead > 0 else { continue }
                let oldest = try Date.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT e.occurred_at FROM kit_outbox_delivery d JOIN kit_outbox_event e ON e.seq = d.event_seq
                            WHERE d.subscriber = ? AND d.dead_at IS NULL ORDER BY d.event_seq LIMIT 1
                            """), arguments: [subscriber])
                backlog[subscriber] = Backlog(
                    pending: pending, oldestPendingAge: oldest.map { max(0, now.timeIntervalSince($0)) } ?? 0,
                    dead: dead)
            }
            return backlog
        }
    }

    /// `pinhole_outbox_pending`, `pinhole_outbox_oldest_pending_seconds` and
    /// `pinhole_outbox_dead` per subscriber, for the alert rules; every subscriber is
    /// written, so one that caught up reads 0 rather than its last backlog.
    private func recordGauges(_ schedule: JobRunner.GaugeSchedule) async {
        let start = ContinuousClock.now
        guard schedule.due(at: start) else { return }
        defer { schedule.took(ContinuousClock.now - start, startedAt: start) }
        do {
            let backlog = try await backlog()
            for subscriber in ServiceName.services.map(\.rawValue) {
                let state = backlog[subscriber] ?? Backlog()
                let labels = [("subscriber", subscriber)]
                Gauge(label: "pinhole_outbox_pending", dimensions: labels).record(state.pending)
                Gauge(label: "pinhole_outbox_oldest_pending_seconds", dimensions: labels).record(state.oldestPendingAge)
                Gauge(label: "pinhole_outbox_dead", dimensions: labels).record(state.dead)
            }
        } catch {
            logger.failure("outbox gauges could not be read", error: error)
        }
    }

    /// A delivery that is not dead, with its event (a join, not a table).
    struct Pending: ServiceRow {
        var eventSeq: Int64
        var subscriber: String
        var attempts: Int
        var nextAttemptAt: Date
        var id: String
        var type: String
        var body: Data
    }

    /// Delivers what is due; returns true when a subscriber got through a full batch (there
    /// may be more). Each subscriber's queue is read on its own, and only when its head is
    /// due: one that is down holds up only itself, and waiting for it costs an index seek.
    func deliverDue() async -> Bool {
        let now = outbox.clock.now()
        let batches: [String: [Pending]]
        do {
            batches = try await database.tracedRead { [batchSize] db in
                var batches: [String: [Pending]] = [:]
                // One index seek per subscriber (a scan of the queue would cost as much as
                // the queue is long, on every commit that enqueues).
                for subscriber in ServiceName.services.map(\.rawValue) {
                    guard
                        let head = try Date.fetchOne(
                            db.cachedStatement(
                                sql: """
                                    SELECT next_attempt_at FROM kit_outbox_delivery
                                    WHERE subscriber = ? AND dead_at IS NULL ORDER BY event_seq LIMIT 1
                                    """), arguments: [subscriber]),
                        head <= now
                    else { continue }
                    batches[subscriber] = try Pending.fetchAll(
                        db.cachedStatement(
                            sql: """
                                SELECT d.event_seq, d.subscriber, d.attempts, d.next_attempt_at, e.id, e.type, e.body
                                FROM kit_outbox_delivery d JOIN kit_outbox_event e ON e.seq = d.event_seq
                                WHERE d.subscriber = ? AND d.dead_at IS NULL
                                ORDER BY d.event_seq
                                LIMIT ?
                                """), arguments: [subscriber, batchSize])
                }
                return batches
            }
        } catch {
            logger.failure("outbox read failed", error: error)
            return false
        }
        return await withTaskGroup(of: Bool.self) { [batchSize] group in
            for (subscriber, queue) in batches {
                group.addTask { await deliver(queue, to: subscriber) && queue.count == batchSize }
            }
            return await group.reduce(false) { $0 || $1 }
        }
    }

    /// Sends `queue` in order; returns whether it got through all of it (false when it stopped
    /// at an event not yet due or one to retry later).
    ///
    /// What was delivered is forgotten in one write when the queue ends or stops (one commit,
    /// and the deleted rows' pages written once, for a pass that delivered many): a crash
    /// before then sends those events again, which their subscribers' inboxes absorb.
    private func deliver(_ queue: [Pending], to subscriber: String) async -> Bool {
        guard let target = ServiceName(rawValue: subscriber) else { return false }
        var delivered: [Int64] = []
        func forgetDelivered() async -> Bool {
            guard !delivered.isEmpty else { return true }
            do {
                try await database.tracedWrite { [delivered] db in
                    let delivery = try db.cachedStatement(
                        sql: "DELETE FROM kit_outbox_delivery WHERE event_seq = ? AND subscriber = ?")
                    let event = try db.cachedStatement(
                        sql: """
                            DELETE FROM kit_outbox_event WHERE seq = ?1
                            AND NOT EXISTS (SELECT 1 FROM kit_outbox_delivery WHERE event_seq = ?1)
                            """)
                    for seq in delivered {
                        try delivery.execute(arguments: [seq, subscriber])
                        try event.execute(arguments: [seq])
                    }
                }
                delivered = []
                return true
            } catch {
                logger.failure("outbox bookkeeping failed", error: error)
                return false
            }
        }
        /// Keeps what became of `item`; false when the queue stops here (retry later).
        func handle(_ outcome: Outcome, of item: Pending, at now: Date) async throws -> Bool {
            switch outcome {
            case .delivered:
                delivered.append(item.eventSeq)
                Counter(label: "pinhole_outbox_delivered_total", dimensions: [("subscriber", subscriber)])
                    .increment()
                return true
            case .retry(let reason):
                _ = await forgetDelivered()
                let delay = backoff(afterAttempts: item.attempts + 1)
                try await database.tracedWrite { db in
                    try db.execute(
                        sql: """
                            UPDATE kit_outbox_delivery SET attempts = attempts + 1, next_attempt_at = ?, last_error = ?
                            WHERE event_seq = ? AND subscriber = ?
                            """,
                        arguments: [now.addingTimeInterval(delay), reason, item.eventSeq, subscriber])
                }
                logger.debug(
                    "event delivery will be retried",
                    metadata: [
                        "event_id": "\(item.id)", "subscriber": "\(subscriber)", "reason": "\(reason)",
                        "retry_in_s": "\(delay)",
                    ])
                Counter(label: "pinhole_outbox_retries_total", dimensions: [("subscriber", subscriber)]).increment()
                return false
            case .refused(let reason):
                _ = await forgetDelivered()
                try await database.tracedWrite { db in
                    try db.execute(
                        sql: """
                            UPDATE kit_outbox_delivery SET attempts = attempts + 1, dead_at = ?, last_error = ?
                            WHERE event_seq = ? AND subscriber = ?
                            """, arguments: [now, reason, item.eventSeq, subscriber])
                }
                logger.error(
                    "subscriber refused event; parked as dead",
                    metadata: [
                        // No event type: some (duress.raised) must never show in logs.
                        "event_id": "\(item.id)", "subscriber": "\(subscriber)", "reason": "\(reason)",
                    ])
                Counter(label: "pinhole_outbox_dead_total", dimensions: [("subscriber", subscriber)]).increment()
                return true
            }
        }
        var next = queue.startIndex
        while next < queue.endIndex {
            let now = outbox.clock.now()
            guard queue[next].nextAttemptAt <= now else {
                _ = await forgetDelivered()
                return false
            }
            let batch = batchable(queue[next...], due: now, to: target)
            // Its own trace: the request that wrote the events has long been answered. No event
            // type in its name: some (duress.raised) must never show outside the process.
            let outcomes = await Telemetry.withSpan("outbox deliver", kind: .producer, context: .topLevel) {
                span, _ in
                span?.attributes["pinhole.event_id"] = "\(batch[batch.startIndex].id)"
                span?.attributes["pinhole.event_count"] = batch.count
                span?.attributes["pinhole.subscriber"] = subscriber
                return batch.count == 1
                    ? [await send(batch[batch.startIndex], to: target)] : await send(batch, to: target)
            }
            do {
                for (item, outcome) in zip(batch, outcomes) {
                    guard try await handle(outcome, of: item, at: now) else { return false }
                }
            } catch {
                logger.failure("outbox bookkeeping failed", error: error)
                return false
            }
            next += outcomes.count
        }
        return await forgetDelivered()
    }

    enum Outcome {
        case delivered
        case retry(String)
        case refused(String)
    }

    /// Most events, and most bytes of them, sent in one batch.
    static let batchLimit = (events: 100, bytes: 1 << 20)

    /// The due events at the head of `queue` that go in one request: more than one only to a
    /// subscriber that takes batches, each event one line (a stored envelope is compact JSON,
    /// so never holds a line break; one that did would go alone).
    func batchable(_ queue: ArraySlice<Pending>, due now: Date, to target: ServiceName) -> ArraySlice<Pending> {
        let head = queue.startIndex
        guard !batchless.refuses(target, at: now), !queue[head].body.contains(newline) else {
            return queue[head...head]
        }
        var end = head + 1
        var bytes = queue[head].body.count
        while end < queue.endIndex, end - head < Self.batchLimit.events {
            let item = queue[end]
            bytes += item.body.count + 1
            guard item.nextAttemptAt <= now, bytes <= Self.batchLimit.bytes, !item.body.contains(newline) else { break }
            end += 1
        }
        return queue[head..<end]
    }

    private var newline: UInt8 { UInt8(ascii: "\n") }

    /// Sends `batch` in one request (`/internal/events/batch`); what became of its events in
    /// order, as many as the subscriber answered for plus, when it stopped early, the retry
    /// of the first it did not take. A subscriber that does not know the route (an older
    /// build, during a rolling upgrade) is sent single events for ``Batchless/rest``.
    private func send(_ batch: ArraySlice<Pending>, to target: ServiceName) async -> [Outcome] {
        var body = ByteBuffer()
        for item in batch {
            if body.readableBytes > 0 { body.writeInteger(newline) }
            body.writeBytes(item.body)
        }
        let response: InternalResponse
        do {
            response = try await client.send(
                .POST, to: target, path: "/internal/events/batch", body: body,
                headers: ["content-type": "application/x-ndjson"])
        } catch {
            return [.retry((error as? ServiceError)?.code.rawValue ?? "\(error)")]
        }
        switch response.status.code {
        case 200..<300: break
        case 408, 429, 500...: return [.retry("HTTP \(response.status.code)")]
        default:
            batchless.refuse(target, from: outbox.clock.now())
            logger.warning(
                "subscriber refused a batch; sending it single events",
                metadata: ["subscriber": "\(target.rawValue)", "status": "\(response.status.code)"])
            return [await send(batch[batch.startIndex], to: target)]
        }
        guard
            let answer = try? JSONCoding.sharedDecoder.decode(
                BatchAnswer.self, from: Data(response.body.readableBytesView)),
            answer.receipts.count <= batch.count
        else { return [.retry("unreadable batch answer")] }
        var outcomes = answer.receipts.map { receipt -> Outcome in
            receipt.status == "refused" ? .refused(receipt.code?.rawValue ?? "refused") : .delivered
        }
        if outcomes.count < batch.count { outcomes.append(.retry("the batch stopped before this event")) }
        return outcomes
    }

    private func send(_ item: Pending, to target: ServiceName) async -> Outcome {
        do {
            let response = try await client.send(
                .POST, to: target, path: "/internal/events", body: .init(bytes: item.body),
                headers: ["content-type": "application/json"])
            switch response.status.code {
            case 200..<300: return .delivered
            case 408, 429, 500...: return .retry("HTTP \(response.status.code)")
            default:
                let code = response.errorEnvelope?.error.code.rawValue ?? "HTTP \(response.status.code)"
                return .refused(code)
            }
        } catch {
            return .retry((error as? ServiceError)?.code.rawValue ?? "\(error)")
        }
    }

    /// 0.5 s doubling per attempt, capped at `maxBackoff`, with ±25 % jitter so that many
    /// producers do not retry in lockstep.
    func backoff(afterAttempts attempts: Int) -> TimeInterval {
        Self.backoff(afterAttempts: attempts, maxBackoff: maxBackoff, jitter: outbox.entropy.unitInterval())
    }

    static func backoff(afterAttempts attempts: Int, maxBackoff: TimeInterval, jitter: Double) -> TimeInterval {
        let base = min(maxBackoff, 0.5 * pow(2, Double(min(attempts - 1, 20))))
        return base * (0.75 + 0.5 * jitter)
    }
}

/// Subscribers that refused a batch, sent single events until a while has passed.
final class Batchless: Sendable {
    /// How long a subscriber that refused a batch is sent single events.
    static let rest: TimeInterval = 600
    private let until = Mutex<[ServiceName: Date]>([:])

    func refuse(_ subscriber: ServiceName, from now: Date) {
        until.withLock { $0[subscriber] = now.addingTimeInterval(Self.rest) }
    }

    func refuses(_ subscriber: ServiceName, at now: Date) -> Bool {
        until.withLock { ($0[subscriber] ?? .distantPast) > now }
    }
}
