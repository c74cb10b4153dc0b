import Foundation
import GRDB
import Logging
import Metrics
import ServiceHTTP
import ServiceLifecycle
import Synchronization

/// One run of a job, as its handler sees it.
public struct JobAttempt: Sendable {
    /// The key it was scheduled under.
    public let key: String
    /// 1 on the first run, 2 on the first retry, and so on (a run cut short by a crash counts).
    public let number: Int
    /// When it was due.
    public let dueAt: Date
}

/// How a run ended, with what it wrote: `record` runs in the transaction that completes the
/// job (or schedules its retry), so a job's effects and its completion commit together, and
/// a batch of jobs costs one disk sync however many rows each writes.
public struct JobCompletion: Sendable {
    let record: (@Sendable (Database) throws -> Void)?
    let retry: (after: TimeInterval?, reason: String)?
    let postponedUntil: Date?
    /// Retrying cannot help (a group member whose payload does not decode).
    let failure: String?

    init(
        record: (@Sendable (Database) throws -> Void)?, retry: (after: TimeInterval?, reason: String)?,
        postponedUntil: Date? = nil, failure: String? = nil
    ) {
        self.record = record
        self.retry = retry
        self.postponedUntil = postponedUntil
        self.failure = failure
    }

    /// Done; `record` (if any) commits with the job's removal.
    public static func done(recording record: (@Sendable (Database) throws -> Void)? = nil) -> JobCompletion {
        JobCompletion(record: record, retry: nil)
    }

    /// Not yet (the user's quiet hours, say): due again at `date`. Nothing failed, so the run
    /// does not count against the job's attempts.
    public static func postpone(until date: Date) -> JobCompletion {
        JobCompletion(record: nil, retry: nil, postponedUntil: date)
    }

    /// Part of the work is left: run again after `seconds` (nil: the runner's backoff for this
    /// attempt); `record` keeps what was done.
    public static func retry(
        after seconds: TimeInterval?, _ reason: String, recording record: (@Sendable (Database) throws -> Void)? = nil
    ) -> JobCompletion {
        JobCompletion(record: record, retry: (seconds, reason))
    }
}

/// What a handler throws to say how its job failed. Any other error is retried with backoff.
public enum JobFailure: Error, Sendable {
    /// Retrying cannot help (the object is gone, the payload is wrong): the job is parked as
    /// failed, logged and counted.
    case permanent(String)
    /// Try again after `seconds` (a provider's `Retry-After`) instead of the usual backoff.
    case retry(after: TimeInterval, String)
}

/// Runs a service's durable jobs (``JobQueue``) when they are due.
///
/// Every `pollInterval`, and as soon as a transaction schedules a job due now, the runner
/// claims up to `batchSize` due jobs in one write (counting the attempt and setting the time of
/// the next one), runs their handlers, at most `concurrency` at a time, and records all outcomes
/// in one more write: done jobs are deleted, failed ones wait for their retry time (0.5 s
/// doubling per attempt, capped at `maxBackoff`, ±25 % jitter) or, after `maxAttempts` or a
/// ``JobFailure/permanent(_:)``, are parked. A process killed mid-run loses no job: what was
/// claimed runs again at its retry time, so a handler must tolerate running twice (keys make
/// that easy). A job that kills the process every time runs out of attempts like any other.
///
/// `/metrics` shows, per kind: `pinhole_jobs_due` (due, not run yet), `pinhole_jobs_late`
/// (due longer than `lateAfter` ago), `pinhole_jobs_failed` (parked), and the counters
/// `pinhole_jobs_runs_total{outcome=done|retry|postponed|failed}`.
///
/// A kind registered with ``completeTogether(_:run:)`` runs the due jobs of one claim as a
/// group: one handler call and one recording for all of them (a nightly pass over a million
/// streaks reads a batch's rows with one query each instead of one query per job). A group
/// that fails is retried job by job: a job on its second attempt or later always runs alone, so
/// one job that cannot succeed never holds back the others more than once. A kind registered
/// with ``completeEach(_:inGroupsOf:run:)`` runs in groups too, but says how each job ended:
/// one read for a group's work, each job done, retried or postponed on its own.
public struct JobRunner: Service {
    public typealias Handler = @Sendable (_ payload: Data, _ attempt: JobAttempt) async throws -> JobCompletion

    /// A group kind's handler: one completion for all the jobs (`together`), or one per job.
    struct GroupHandler: Sendable {
        let together: Bool
        let limit: Int
        let run: @Sendable (_ jobs: [(payload: Data, attempt: JobAttempt)]) async throws -> [JobCompletion]
    }

    public let database: DatabasePool
    let queue: JobQueue
    let entropy: any Entropy
    let pollInterval: Duration
    let maxAttempts: Int
    let maxBackoff: TimeInterval
    let concurrency: Int
    let batchSize: Int
    let lateAfter: TimeInterval
    let logger: Logger
    private var handlers: [JobKind: Handler] = [:]
    private var groupHandlers: [JobKind: GroupHandler] = [:]

    public init(
        database: DatabasePool, queue: JobQueue, entropy: any Entropy, pollInterval: Duration = .seconds(1),
        maxAttempts: Int = 12, maxBackoff: TimeInterval = 3600, concurrency: Int = 16, batchSize: Int = 200,
        lateAfter: TimeInterval = 60, logger: Logger
    ) {
        self.database = database
        self.queue = queue
        self.entropy = entropy
        self.pollInterval = pollInterval
        self.maxAttempts = maxAttempts
        self.maxBackoff = maxBackoff
        self.concurrency = max(1, concurrency)
        self.batchSize = max(1, batchSize)
        self.lateAfter = lateAfter
        self.logger = logger
    }

    /// Registers the handler of `kind`. A payload that no longer decodes fails the job for good.
    public mutating func on<Payload: Decodable & Sendable>(
        _ kind: JobKind, run: @escaping @Sendable (Payload, JobAttempt) async throws -> Void
    ) {
        complete(kind) { (payload: Payload, attempt) in
            try await run(payload, attempt)
            return .done()
        }
    }

    /// Registers the handler of `kind` that says how it ended and what to record with it.
    public mutating func complete<Payload: Decodable & Sendable>(
        _ kind: JobKind, run: @escaping @Sendable (Payload, JobAttempt) async throws -> JobCompletion
    ) {
        handlers[kind] = { data, attempt in
            let payload: Payload
            do {
                payload = try JSONCoding.sharedDecoder.decode(Payload.self, from: data)
            } catch {
                throw JobFailure.permanent("the payload does not decode as \(Payload.self)")
            }
            return try await run(payload, attempt)
        }
    }

    /// Registers the handler of `kind` that takes the due jobs of a claim together (at most
    /// `batchSize`) and says how they all ended, with one recording for the group. A job whose
    /// payload no longer decodes fails alone; a job retried runs in a group of its own.
    public mutating func completeTogether<Payload: Decodable & Sendable>(
        _ kind: JobKind,
        run: @escaping @Sendable (_ jobs: [(payload: Payload, attempt: JobAttempt)]) async throws -> JobCompletion
    ) {
        groupHandlers[kind] = GroupHandler(together: true, limit: .max) { jobs in
            let payloads = try jobs.map { job in
                do {
                    return (try JSONCoding.sharedDecoder.decode(Payload.self, from: job.payload), job.attempt)
                } catch {
                    throw JobFailure.permanent("the payload does not decode as \(Payload.self)")
                }
            }
            return [try await run(payloads)]
        }
    }

    /// Registers the handler of `kind` that takes up to `size` due jobs of a claim at once and
    /// says how each ended, in order: each is done, retried or postponed alone, with its own
    /// recording. A job whose payload no longer decodes fails alone; if the handler throws,
    /// every job of the group is retried, each alone.
    public mutating func completeEach<Payload: Decodable & Sendable>(
        _ kind: JobKind, inGroupsOf size: Int,
        run: @escaping @Sendable (_ jobs: [(payload: Payload, attempt: JobAttempt)]) async throws -> [JobCompletion]
    ) {
        groupHandlers[kind] = GroupHandler(together: false, limit: max(1, size)) { jobs in
            var completions = [JobCompletion?](repeating: nil, count: jobs.count)
            var payloads: [(payload: Payload, attempt: JobAttempt)] = []
            var decoded: [Int] = []
            for (index, job) in jobs.enumerated() {
                if let payload = try? JSONCoding.sharedDecoder.decode(Payload.self, from: job.payload) {
                    payloads.append((payload, job.attempt))
                    decoded.append(index)
                } else {
                    completions[index] = JobCompletion(
                        record: nil, retry: nil, failure: "the payload does not decode as \(Payload.self)")
                }
            }
            if !payloads.isEmpty {
                let answers = try await run(payloads)
                guard answers.count == payloads.count else {
                    throw JobFailure.retry(after: 1, "the handler answered \(answers.count) of \(payloads.count) jobs")
                }
                for (index, answer) in zip(decoded, answers) { completions[index] = answer }
            }
            return completions.map { $0! }
        }
    }

    /// The kinds this runner has handlers for.
    public var kinds: Set<JobKind> { Set(handlers.keys).union(groupHandlers.keys) }

    public func run() async {
        let doorbell = queue.doorbell
        let gauges = GaugeSchedule(interval: pollInterval)
        await PeriodicService(interval: pollInterval, doorbell: doorbell) {
            await drain { await recordGauges(gauges) }
            await recordGauges(gauges)
        }.run()
    }

    /// Claimed jobs run together (one, or a group of a ``completeTogether(_:run:)`` kind) and
    /// how their run ended.
    struct Outcome: Sendable {
        enum Result: Sendable {
            case done
            case retry(after: TimeInterval, String)
            case postponed(until: Date)
            case failed(String)
        }
        var jobs: [JobRecord]
        var result: Result
        var record: (@Sendable (Database) throws -> Void)? = nil
    }

    /// The runs a claim makes: each job alone, except that the first-attempt jobs of a group
    /// kind run together (in groups of at most the kind's size).
    func runs(of claimed: [JobRecord]) -> [[JobRecord]] {
        var runs: [[JobRecord]] = []
        var groups: [String: Int] = [:]
        for job in claimed {
            if job.attempts <= 1, let handler = groupHandlers[JobKind(rawValue: job.kind)] {
                if let index = groups[job.kind], runs[index].count < handler.limit {
                    runs[index].append(job)
                } else {
                    groups[job.kind] = runs.count
                    runs.append([job])
                }
            } else {
                runs.append([job])
            }
        }
        return runs
    }

    /// Runs one batch of due jobs; returns true when the batch was full (more may be due).
    /// The service does this on its own; tests and tools call it to run what is due now.
    @discardableResult
    public func runDue() async -> Bool {
        let now = queue.clock.now()
        let claimed: [JobRecord]
        do {
            claimed = try await claim(now: now)
        } catch {
            logger.failure("jobs could not be claimed", error: error)
            return false
        }
        guard !claimed.isEmpty else { return false }
        let outcomes = await withTaskGroup(of: [Outcome].self, returning: [Outcome].self) { group in
            var outcomes: [Outcome] = []
            var next = runs(of: claimed).makeIterator()
            for _ in 0..<concurrency {
                guard let job = next.next() else { break }
                group.addTask { await execute(job) }
            }
            while let outcome = await group.next() {
                outcomes += outcome
                if let job = next.next() { group.addTask { await execute(job) } }
            }
            return outcomes
        }
        do {
            try await record(outcomes)
        } catch {
            // The claims stand: each job runs again at its retry time.
            logger.failure("job outcomes could not be recorded", error: error)
        }
        return claimed.count == batchSize
    }

    /// Runs due jobs until none is left (also those the jobs' own writes schedule), as a pipeline: the next batch is claimed while the
    /// last one runs, up to `concurrency` handlers run at all times (a slow job holds up only
    /// its own slot, not a batch), and the outcomes that finished while one write was recording
    /// are recorded together in the next. Each stage is a write or a handler, so claiming,
    /// running and recording overlap instead of taking turns. `between` runs after each claim
    /// (the gauges of a long drain).
    ///
    /// A job stays claimed from its claim to the commit of its outcome, and no claim takes a job
    /// that is claimed: a handler slower than the retry time its claim set is not run twice.
    public func drain(between: @escaping @Sendable () async -> Void = {}) async {
        enum Step: Sendable {
            case claimed([JobRecord])
            case executed([Outcome])
            case recorded([Int64])
            case between
        }
        await withTaskGroup(of: Step.self) { group in
            var waiting: [[JobRecord]] = []
            var next = 0
            var claimed: Set<Int64> = []
            var outcomes: [Outcome] = []
            var (running, claiming, recording, more) = (0, false, false, true)
            while true {
                // Claimed ahead: fewer jobs waiting than slots (a group counts all its jobs).
                if more, !claiming, waiting[next...].reduce(0, { $0 + $1.count }) < concurrency {
                    claiming = true
                    let skipping = claimed
                    group.addTask {
                        do {
                            return .claimed(try await claim(now: queue.clock.now(), skipping: skipping))
                        } catch {
                            logger.failure("jobs could not be claimed", error: error)
                            return .claimed([])
                        }
                    }
                }
                while running < concurrency, next < waiting.count {
                    let job = waiting[next]
                    next += 1
                    running += 1
                    group.addTask { .executed(await execute(job)) }
                }
                if !recording, !outcomes.isEmpty {
                    recording = true
                    let batch = outcomes
                    outcomes = []
                    group.addTask {
                        do {
                            try await record(batch)
                        } catch {
                            // The claims stand: each job runs again at its retry time.
                            logger.failure("job outcomes could not be recorded", error: error)
                        }
                        return .recorded(batch.flatMap { $0.jobs.compactMap(\.seq) })
                    }
                }
                guard let step = await group.next() else { return }
                switch step {
                case .claimed(let jobs):
                    claiming = false
                    more = jobs.count == batchSize
                    waiting.removeFirst(next)
                    next = 0
                    waiting += runs(of: jobs)
                    claimed.formUnion(jobs.compactMap(\.seq))
                    group.addTask {
                        await between()
                        return .between
                    }
                case .executed(let finished):
                    running -= 1
                    outcomes += finished
                case .recorded(let seqs):
                    recording = false
                    claimed.subtract(seqs)
                    // What was recorded may have scheduled more, due now (a fan-out's next batch).
                    more = true
                case .between: break
                }
            }
        }
    }

    /// The next `limit` due jobs of `kinds`, oldest first, read in the due index's order (no
    /// sort, however many are due at the same instant).
    static func due(kinds: [String], now: Date, skipping: Set<Int64>, limit: Int) -> QueryInterfaceRequest<JobRecord> {
        JobRecord.all().pending()
            .filter(kinds.contains(JobRecord.Columns.kind) && JobRecord.Columns.dueAt <= now)
            .filter(!skipping.contains(JobRecord.Columns.seq))
            .order(JobRecord.Columns.dueAt, JobRecord.Columns.seq)
            .limit(limit)
    }

    /// Counts an attempt on each due job and moves its due time to when it would be retried, in
    /// one transaction: if the process dies now, that is when the job runs again. Jobs in
    /// `skipping` (claimed by a run still under way) are left alone.
    func claim(now: Date, skipping: Set<Int64> = []) async throws -> [JobRecord] {
        let kinds = self.kinds.map(\.rawValue)
        let (batchSize, maxBackoff, entropy) = (self.batchSize, self.maxBackoff, self.entropy)
        return try await database.tracedWrite { db in
            var jobs = try Self.due(kinds: kinds, now: now, skipping: skipping, limit: batchSize).fetchAll(db)
            // One statement per attempt number (nearly always one for the batch): jobs that
            // failed as often retry together, at one jittered time.
            for (attempts, indices) in Dictionary(grouping: jobs.indices, by: { jobs[$0].attempts }) {
                let retry = OutboxDispatcher.backoff(
                    afterAttempts: attempts + 1, maxBackoff: maxBackoff, jitter: entropy.unitInterval())
                try JobRecord.filter(indices.compactMap { jobs[$0].seq }.contains(JobRecord.Columns.seq)).updateAll(
                    db, JobRecord.Columns.attempts.set(to: attempts + 1),
                    JobRecord.Columns.dueAt.set(to: now.addingTimeInterval(retry)))
                // The handler sees when the job was due, not the retry time just stored.
                for index in indices { jobs[index].attempts = attempts + 1 }
            }
            return jobs
        }
    }

    /// Runs `jobs` (one, or a group of one kind) through their handler: one outcome for them
    /// all, or one per job for a ``completeEach(_:inGroupsOf:run:)`` kind.
    private func execute(_ jobs: [JobRecord]) async -> [Outcome] {
        let first = jobs[0]
        let kind = JobKind(rawValue: first.kind)
        let attempts = jobs.map { JobAttempt(key: $0.key, number: $0.attempts, dueAt: $0.dueAt) }
        let run: @Sendable () async throws -> [JobCompletion]
        var each = false
        if let handler = groupHandlers[kind] {
            run = { try await handler.run(Array(zip(jobs.map(\.payload), attempts))) }
            each = !handler.together
        } else if let handler = handlers[kind], jobs.count == 1 {
            run = { [try await handler(first.payload, attempts[0])] }
        } else {
            return [Outcome(jobs: jobs, result: .failed("no handler"))]
        }
        // A group's jobs are retried alone, where each can succeed or fail on its own.
        let backoff = OutboxDispatcher.backoff(
            afterAttempts: first.attempts, maxBackoff: maxBackoff, jitter: entropy.unitInterval())
        do {
            let completions = try await run()
            guard each else { return [Self.outcome(of: jobs, completions[0], backoff: backoff)] }
            return zip(jobs, completions).map { job, completion in
                Self.outcome(of: [job], completion, backoff: backoff)
            }
        } catch JobFailure.permanent(let reason) where jobs.count == 1 {
            return [Outcome(jobs: jobs, result: .failed(reason))]
        } catch JobFailure.retry(let seconds, let reason) {
            return [Outcome(jobs: jobs, result: .retry(after: seconds, reason))]
        } catch {
            return [Outcome(jobs: jobs, result: .retry(after: backoff, "\(error)"))]
        }
    }

    /// What a completion means for the jobs it answers.
    private static func outcome(of jobs: [JobRecord], _ completion: JobCompletion, backoff: TimeInterval) -> Outcome {
        if let reason = completion.failure { return Outcome(jobs: jobs, result: .failed(reason)) }
        if let date = completion.postponedUntil { return Outcome(jobs: jobs, result: .postponed(until: date)) }
        guard let retry = completion.retry else { return Outcome(jobs: jobs, result: .done, record: completion.record) }
        return Outcome(
            jobs: jobs, result: .retry(after: retry.after ?? backoff, retry.reason), record: completion.record)
    }

    /// Writes every outcome of a batch, with what each job recorded, in one transaction (one
    /// disk sync for the batch). A job whose own writes fail is retried; the others commit.
    private func record(_ outcomes: [Outcome]) async throws {
        let now = queue.clock.now()
        let (maxAttempts, maxBackoff, entropy, logger) = (self.maxAttempts, self.maxBackoff, self.entropy, self.logger)
        let (parked, retried, labels) = try await database.tracedWrite { db in
            var parked: [(JobRecord, String)] = []
            var retried: [String: (keys: [String], reason: String, after: TimeInterval)] = [:]
            var labels: [(kind: String, outcome: String)] = []
            var done: [Int64] = []
            for var outcome in outcomes {
                if let record = outcome.record {
                    do {
                        try db.inSavepoint {
                            try record(db)
                            return .commit
                        }
                    } catch {
                        let first = outcome.jobs[0]
                        logger.failure("a job's writes failed", error: error, metadata: ["kind": "\(first.kind)"])
                        let delay = OutboxDispatcher.backoff(
                            afterAttempts: first.attempts, maxBackoff: maxBackoff, jitter: entropy.unitInterval())
                        outcome.result = .retry(after: delay, "\(error)")
                    }
                }
                for job in outcome.jobs {
                    guard let seq = job.seq else { continue }
                    // Attempts 0: scheduled again since its claim, a new job that stays as it is.
                    let row = JobRecord.filter(JobRecord.Columns.seq == seq && JobRecord.Columns.attempts > 0)
                    switch outcome.result {
                    case .done:
                        done.append(seq)
                        labels.append((job.kind, "done"))
                    case .retry(let seconds, let reason) where job.attempts < maxAttempts:
                        try row.updateAll(
                            db, JobRecord.Columns.dueAt.set(to: now.addingTimeInterval(max(0, seconds))),
                            Column("last_error").set(to: reason))
                        retried[job.kind, default: ([], reason, seconds)].keys.append(job.key)
                        labels.append((job.kind, "retry"))
                    case .postponed(let date):
                        try row.updateAll(
                            db, JobRecord.Columns.dueAt.set(to: date),
                            JobRecord.Columns.attempts.set(to: max(0, job.attempts - 1)))
                        labels.append((job.kind, "postponed"))
                    case .retry(_, let reason), .failed(let reason):
                        try row.updateAll(
                            db, JobRecord.Columns.failedAt.set(to: now), Column("last_error").set(to: reason))
                        parked.append((job, reason))
                        labels.append((job.kind, "failed"))
                    }
                }
            }
            // A job scheduled again during its run (by itself or another write) stays.
            try JobRecord.filter(done.contains(JobRecord.Columns.seq) && JobRecord.Columns.attempts > 0).deleteAll(db)
            return (parked, retried, labels)
        }
        for label in labels {
            Counter(label: "pinhole_jobs_runs_total", dimensions: [("kind", label.kind), ("outcome", label.outcome)])
                .increment()
        }
        // One line per kind and batch: a provider down for an hour says so, not once per job.
        for (kind, retry) in retried.sorted(by: { $0.key < $1.key }) {
            logger.notice(
                "jobs will run again",
                metadata: [
                    "kind": "\(kind)", "jobs": "\(retry.keys.count)", "firstKey": "\(retry.keys[0])",
                    "reason": "\(retry.reason)", "afterSeconds": "\(Int(max(0, retry.after).rounded(.up)))",
                ])
        }
        for (job, reason) in parked {
            logger.error(
                "job failed for good; parked",
                metadata: [
                    "kind": "\(job.kind)", "key": "\(job.key)", "attempts": "\(job.attempts)", "reason": "\(reason)",
                ])
        }
    }

    /// When the gauges are read: once a poll interval, not after every batch while a backlog
    /// drains, and never so often that reading them takes more than a twentieth of the time
    /// (counting a backlog of a million due jobs takes most of a second).
    final class GaugeSchedule: Sendable {
        let interval: Duration
        private let next = Mutex<ContinuousClock.Instant?>(nil)

        init(interval: Duration) { self.interval = interval }

        /// Whether the gauges should be read now; if so, the next reading waits an interval.
        func due(at now: ContinuousClock.Instant = .now) -> Bool {
            next.withLock { next in
                guard next.map({ now >= $0 }) ?? true else { return false }
                next = now + interval
                return true
            }
        }

        /// A reading that started at `start` took `cost`: the next waits twenty times that.
        func took(_ cost: Duration, startedAt start: ContinuousClock.Instant) {
            next.withLock { next in next = start + max(interval, cost * 20) }
        }
    }

    /// How many jobs of a kind are due, late and parked.
    public struct Stats: Sendable, Equatable {
        public var due = 0
        public var late = 0
        public var failed = 0
    }

    /// Due jobs and how many of them are late (due before the first argument), per kind, up to
    /// the second argument. Like ``countFailed`` it reads the due index alone
    /// (`kit_job_due` ends with the kind), never the jobs that wait for a later time.
    static let countDue = """
        SELECT kind, COUNT(*), SUM(due_at <= ?) FROM kit_job
        WHERE failed_at IS NULL AND due_at <= ? GROUP BY kind
        """
    /// Parked jobs per kind (`+kind`: grouping by the unique key's index would read all of it).
    static let countFailed = "SELECT kind, COUNT(*) FROM kit_job WHERE failed_at IS NOT NULL GROUP BY +kind"

    /// Due, late and failed jobs per kind, every kind with a handler included.
    public func stats() async throws -> [JobKind: Stats] {
        let now = queue.clock.now()
        let lateBefore = now.addingTimeInterval(-lateAfter)
        var stats = Dictionary(uniqueKeysWithValues: kinds.map { ($0, Stats()) })
        let (due, failed) = try await database.tracedRead { db in
            let due = try Row.fetchAll(db.cachedStatement(sql: Self.countDue), arguments: [lateBefore, now])
                .map { row -> (String, Int, Int) in (row[0], row[1], row[2]) }
            let failed = try Row.fetchAll(db.cachedStatement(sql: Self.countFailed))
                .map { row -> (String, Int) in (row[0], row[1]) }
            return (due, failed)
        }
        for (kind, count, late) in due {
            stats[JobKind(rawValue: kind), default: Stats()].due = count
            stats[JobKind(rawValue: kind), default: Stats()].late = late
        }
        for (kind, count) in failed { stats[JobKind(rawValue: kind), default: Stats()].failed = count }
        return stats
    }

    private func recordGauges(_ schedule: GaugeSchedule) async {
        let start = ContinuousClock.now
        guard schedule.due(at: start) else { return }
        defer { schedule.took(ContinuousClock.now - start, startedAt: start) }
        do {
            for (kind, stats) in try await stats() {
                Gauge(label: "pinhole_jobs_due", dimensions: [("kind", kind.rawValue)]).record(stats.due)
                Gauge(label: "pinhole_jobs_late", dimensions: [("kind", kind.rawValue)]).record(stats.late)
                Gauge(label: "pinhole_jobs_failed", dimensions: [("kind", kind.rawValue)]).record(stats.failed)
            }
        } catch {
            logger.failure("job gauges could not be read", error: error)
        }
    }
}
