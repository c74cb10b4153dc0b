import Foundation
import GRDB
import Logging
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

@testable import ServiceHTTP
@testable import ServiceStore

@Suite struct JobRunnerTests {
    struct Reminder: Codable, Sendable, Equatable {
        var text: String
    }

    /// Records each run's payload and attempt number, and fails the first `failures` runs.
    final class Handler: Sendable {
        let runs = Mutex<[(text: String, attempt: Int)]>([])
        let failures: Int
        let error: @Sendable (Int) -> any Error

        init(failures: Int = 0, error: @escaping @Sendable (Int) -> any Error = { _ in CancellationError() }) {
            self.failures = failures
            self.error = error
        }

        func run(_ reminder: Reminder, _ attempt: JobAttempt) throws {
            let count = runs.withLock { runs in
                runs.append((reminder.text, attempt.number))
                return runs.count
            }
            if count <= failures { throw error(count) }
        }

        var texts: [String] { runs.withLock { $0.map(\.text) } }
        var attempts: [Int] { runs.withLock { $0.map(\.attempt) } }
    }

    struct Fixture {
        let file: URL
        let clock = ManualClock()
        let queue: JobQueue
        var database: DatabasePool

        init() throws {
            file = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-\(UUID().uuidString)/a.sqlite")
            queue = JobQueue(clock: clock)
            database = try ServiceDatabase.open(at: file, registerMigrations: Self.migrations)
        }

        static func migrations(_ migrator: inout DatabaseMigrator) {
            migrator.registerMigration("test.notes") { db in
                try db.create(table: "note") { $0.column("text", .text).notNull().unique() }
            }
        }

        func runner(_ handler: Handler, maxAttempts: Int = 5) -> JobRunner {
            var runner = JobRunner(
                database: database, queue: queue, entropy: SeededEntropy(seed: "jobs"),
                pollInterval: .milliseconds(20), maxAttempts: maxAttempts, maxBackoff: 10,
                logger: Logger.test("test"))
            runner.on("remind") { (reminder: Reminder, attempt) in try handler.run(reminder, attempt) }
            return runner
        }

        func schedule(
            _ text: String, key: String, in seconds: TimeInterval = 0, onConflict: JobQueue.Conflict = .keep
        ) async throws -> Bool {
            let due = clock.now().addingTimeInterval(seconds)
            return try await database.write { db in
                try queue.schedule(
                    "remind", key: key, payload: Reminder(text: text), at: due, onConflict: onConflict, in: db)
            }
        }

        func rows() async throws -> Int {
            try await database.read { db in try JobRecord.fetchCount(db) }
        }

        func remove() {
            try? FileManager.default.removeItem(at: file.deletingLastPathComponent())
        }
    }

    @Test func aJobRunsOnceAfterItIsDueAndAKeySchedulesItOnce() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let handler = Handler()
        let runner = fixture.runner(handler)

        #expect(try await fixture.schedule("first", key: "day-1", in: 60))
        #expect(try await !fixture.schedule("second", key: "day-1", in: 5))
        // A transaction that rolls back takes its job with it.
        struct Abort: Error {}
        _ = try? await fixture.database.write { db in
            try fixture.queue.schedule("remind", key: "day-2", payload: Reminder(text: "never"), in: db)
            throw Abort()
        }
        #expect(try await fixture.rows() == 1)

        await runner.runDue()
        #expect(handler.texts.isEmpty)
        fixture.clock.advance(by: 59)
        await runner.runDue()
        #expect(handler.texts.isEmpty)
        fixture.clock.advance(by: 1)
        await runner.runDue()
        #expect(handler.texts == ["first"])
        #expect(handler.attempts == [1])
        await runner.runDue()
        #expect(handler.texts == ["first"])
        #expect(try await fixture.rows() == 0)

        // Once run, the key can be scheduled again.
        #expect(try await fixture.schedule("again", key: "day-1"))
        await runner.runDue()
        #expect(handler.texts == ["first", "again"])
    }

    @Test func replacingMovesTheDueTimeAndCancellingRemovesIt() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let handler = Handler()
        let runner = fixture.runner(handler)

        #expect(try await fixture.schedule("early", key: "k", in: 10))
        #expect(try await fixture.schedule("late", key: "k", in: 100, onConflict: .replace))
        let due = try await fixture.database.read { db in try fixture.queue.due("remind", key: "k", in: db) }
        #expect(due == fixture.clock.now().addingTimeInterval(100))
        // Moving it to the time it already has writes nothing (its payload stays "late").
        #expect(try await !fixture.schedule("same time", key: "k", in: 100, onConflict: .move))
        // Moving it elsewhere replaces it; moving an unknown key schedules it.
        #expect(try await fixture.schedule("moved", key: "m", in: 5, onConflict: .move))
        #expect(try await fixture.schedule("moved later", key: "m", in: 7, onConflict: .move))
        let moved = try await fixture.database.read { db in try fixture.queue.due("remind", key: "m", in: db) }
        #expect(moved == fixture.clock.now().addingTimeInterval(7))
        fixture.clock.advance(by: 50)
        await runner.runDue()
        #expect(handler.texts == ["moved later"])
        fixture.clock.advance(by: 50)
        await runner.runDue()
        #expect(handler.texts == ["moved later", "late"])

        #expect(try await fixture.schedule("cancelled", key: "c", in: 1))
        #expect(try await fixture.database.write { db in try fixture.queue.cancel("remind", key: "c", in: db) })
        #expect(try await !fixture.database.write { db in try fixture.queue.cancel("remind", key: "c", in: db) })
        fixture.clock.advance(by: 2)
        await runner.runDue()
        #expect(handler.texts == ["moved later", "late"])
    }

    @Test func aFailedRunIsRetriedWithBackoffAndParkedAfterItsLastAttempt() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        struct Flaky: Error {}
        let handler = Handler(failures: 2, error: { _ in Flaky() })
        let runner = fixture.runner(handler)
        #expect(try await fixture.schedule("flaky", key: "f"))
        await runner.runDue()
        #expect(handler.attempts == [1])
        // Not again at once: the retry waits its backoff (0.5 s × 0.75…1.25 for the first).
        await runner.runDue()
        #expect(handler.attempts == [1])
        var stats = try await runner.stats()["remind"]
        #expect(stats == JobRunner.Stats(due: 0, late: 0, failed: 0))
        fixture.clock.advance(by: 0.7)
        await runner.runDue()
        #expect(handler.attempts == [1, 2])
        fixture.clock.advance(by: 1.3)
        await runner.runDue()
        #expect(handler.attempts == [1, 2, 3])
        #expect(try await fixture.rows() == 0)

        // Always failing: parked after maxAttempts, then never run again, and counted.
        let hopeless = Handler(failures: .max, error: { _ in Flaky() })
        let strict = fixture.runner(hopeless, maxAttempts: 3)
        #expect(try await fixture.schedule("hopeless", key: "h"))
        for _ in 0..<6 {
            await strict.runDue()
            fixture.clock.advance(by: 11)
        }
        #expect(hopeless.attempts == [1, 2, 3])
        stats = try await strict.stats()["remind"]
        #expect(stats == JobRunner.Stats(due: 0, late: 0, failed: 1))
        // Scheduling a failed job's key again starts it afresh.
        #expect(try await fixture.schedule("hopeless", key: "h"))
        await strict.runDue()
        #expect(hopeless.attempts == [1, 2, 3, 1])
    }

    @Test func aGroupKindRunsAClaimsJobsTogetherAndAFailedGroupRetriesEachAlone() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let calls = Mutex<[[String]]>([])
        var runner = JobRunner(
            database: fixture.database, queue: fixture.queue, entropy: SeededEntropy(seed: "jobs"),
            pollInterval: .milliseconds(20), maxAttempts: 5, maxBackoff: 10, batchSize: 3, logger: Logger.test("test")
        )
        // Each group writes one note per job; the note "bad" breaks the table's uniqueness.
        runner.completeTogether("remind") { (jobs: [(payload: Reminder, attempt: JobAttempt)]) in
            let texts = jobs.map(\.payload.text)
            calls.withLock { $0.append(texts) }
            return .done(recording: { db in
                for text in texts {
                    try db.execute(sql: "INSERT INTO note (text) VALUES (?)", arguments: [text == "bad" ? "a" : text])
                }
            })
        }
        for text in ["a", "b", "c", "d"] { #expect(try await fixture.schedule(text, key: text)) }
        await runner.runDue()
        await runner.runDue()
        // Three at a time (the batch size), one handler call each.
        #expect(calls.withLock { $0 } == [["a", "b", "c"], ["d"]])
        #expect(try await fixture.rows() == 0)

        // A group whose writes fail commits none of them; each job is retried alone, where the
        // good ones succeed and the bad one fails on its own.
        for text in ["e", "bad", "f"] { #expect(try await fixture.schedule(text, key: text)) }
        calls.withLock { $0 = [] }
        await runner.runDue()
        #expect(calls.withLock { $0 } == [["e", "bad", "f"]])
        let notes = {
            try await fixture.database.read { db in try String.fetchAll(db, sql: "SELECT text FROM note ORDER BY text")
            }
        }
        #expect(try await notes() == ["a", "b", "c", "d"])
        fixture.clock.advance(by: 1)
        await runner.runDue()
        #expect(Set(calls.withLock { $0.dropFirst() }) == [["e"], ["bad"], ["f"]])
        #expect(try await notes() == ["a", "b", "c", "d", "e", "f"])
        let left = try await fixture.database.read { db in
            try Row.fetchAll(db, sql: "SELECT key, attempts FROM kit_job").map {
                [$0["key"] as String, "\($0["attempts"] as Int)"]
            }
        }
        #expect(left == [["bad", "2"]])
    }

    @Test func anEachKindRunsGroupsOfItsSizeAndEveryJobEndsOnItsOwn() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let calls = Mutex<[[String]]>([])
        var runner = JobRunner(
            database: fixture.database, queue: fixture.queue, entropy: SeededEntropy(seed: "jobs"),
            pollInterval: .milliseconds(20), maxAttempts: 5, maxBackoff: 10, logger: Logger.test("test"))
        let later = fixture.clock.now().addingTimeInterval(100)
        // "retry" asks for another run in 5 s, "wait" is postponed, "bad" writes a note already
        // there before the run (not a sibling group's, whose commit may come after), the others
        // write their note.
        runner.completeEach("remind", inGroupsOf: 2) { (jobs: [(payload: Reminder, attempt: JobAttempt)]) in
            calls.withLock { $0.append(jobs.map(\.payload.text)) }
            return jobs.map { job -> JobCompletion in
                let text = job.payload.text
                switch text {
                case "retry": return .retry(after: 5, "not yet")
                case "wait": return .postpone(until: later)
                default:
                    return .done(recording: { db in
                        try db.execute(
                            sql: "INSERT INTO note (text) VALUES (?)", arguments: [text == "bad" ? "taken" : text])
                    })
                }
            }
        }
        try await fixture.database.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('taken')") }
        for text in ["a", "retry", "wait", "bad", "e"] { #expect(try await fixture.schedule(text, key: text)) }
        // A payload that does not decode as a reminder.
        _ = try await fixture.database.write { db in
            try fixture.queue.schedule("remind", key: "odd", payload: ["count": 3], at: fixture.clock.now(), in: db)
        }
        await runner.runDue()
        // Groups of two made in the claim's order (they run at once, so the handler may see them
        // in any order), each run once; the odd payload never reaches the handler.
        let groups = calls.withLock { $0 }
        #expect(groups.count == 3)
        #expect(Set(groups) == [["a", "retry"], ["wait", "bad"], ["e"]])
        let notes = {
            try await fixture.database.read { db in try String.fetchAll(db, sql: "SELECT text FROM note ORDER BY text")
            }
        }
        // "bad" was rolled back alone; its group's "wait" and the other groups stand.
        #expect(try await notes() == ["a", "e", "taken"])
        let left = try await fixture.database.read { db in
            try Row.fetchAll(db, sql: "SELECT key, attempts, failed_at IS NOT NULL AS failed FROM kit_job ORDER BY key")
                .map { "\($0["key"] as String) \($0["attempts"] as Int) \($0["failed"] as Bool)" }
        }
        #expect(left == ["bad 1 false", "odd 1 true", "retry 1 false", "wait 0 false"])

        // The retries run alone, when due: "retry" after its 5 s, "bad" after the backoff.
        calls.withLock { $0 = [] }
        fixture.clock.advance(by: 4)
        await runner.runDue()
        #expect(Set(calls.withLock { $0 }) == [["bad"]])
        fixture.clock.advance(by: 2)
        await runner.runDue()
        #expect(Set(calls.withLock { $0 }) == [["bad"], ["retry"]])
    }

    @Test func aPermanentFailureParksAtOnceAndARetryAfterIsHonoured() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let gone = Handler(failures: 1, error: { _ in JobFailure.permanent("the streak is gone") })
        let runner = fixture.runner(gone)
        #expect(try await fixture.schedule("gone", key: "g"))
        await runner.runDue()
        fixture.clock.advance(by: 100)
        await runner.runDue()
        #expect(gone.attempts == [1])
        let reason = try await fixture.database.read { db in
            try String.fetchOne(db, sql: "SELECT last_error FROM kit_job")
        }
        #expect(reason == "the streak is gone")

        let limited = Handler(failures: 1, error: { _ in JobFailure.retry(after: 30, "429") })
        let politer = fixture.runner(limited)
        #expect(try await fixture.schedule("limited", key: "l"))
        await politer.runDue()
        fixture.clock.advance(by: 29)
        await politer.runDue()
        #expect(limited.attempts == [1])
        fixture.clock.advance(by: 1)
        await politer.runDue()
        #expect(limited.attempts == [1, 2])

        // A payload the handler cannot decode is parked, not retried for ever.
        _ = try await fixture.database.write { db in
            try fixture.queue.schedule("remind", key: "bad", payload: ["wrong": 1], in: db)
        }
        await politer.runDue()
        #expect(try await politer.stats()["remind"]?.failed == 2)
    }

    @Test func claimedAndWaitingJobsSurviveAProcessThatDies() async throws {
        var fixture = try Fixture()
        defer { fixture.remove() }
        let handler = Handler()
        let first = fixture.runner(handler)
        #expect(try await fixture.schedule("claimed", key: "a"))
        #expect(try await fixture.schedule("waiting", key: "b", in: 3600))
        // The process dies after claiming, before the handler's outcome is written: the claim
        // committed and nothing else did.
        _ = try await first.claim(now: fixture.clock.now())
        #expect(handler.texts.isEmpty)
        try fixture.database.close()

        fixture.database = try ServiceDatabase.open(at: fixture.file, registerMigrations: Fixture.migrations)
        let second = fixture.runner(handler)
        #expect(try await second.stats()["remind"] == JobRunner.Stats(due: 0, late: 0, failed: 0))
        fixture.clock.advance(by: 2)
        await second.runDue()
        #expect(handler.texts == ["claimed"])
        #expect(handler.attempts == [2])
        fixture.clock.advance(by: 3600 + 61)
        #expect(try await second.stats()["remind"] == JobRunner.Stats(due: 1, late: 1, failed: 0))
        await second.runDue()
        #expect(handler.texts == ["claimed", "waiting"])
        #expect(try await fixture.rows() == 0)
    }

    @Test func drainingRunsEveryDueJobOnceAndNeverClaimsOneStillRunning() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let runs = Mutex<[String]>([])
        let clock = fixture.clock
        var runner = JobRunner(
            database: fixture.database, queue: fixture.queue, entropy: SeededEntropy(seed: "drain"),
            pollInterval: .seconds(3600), concurrency: 2, batchSize: 2, logger: Logger.test("test"))
        runner.on("remind") { (reminder: Reminder, _) in
            runs.withLock { $0.append(reminder.text) }
            guard reminder.text == "slow" else { return }
            // Past the retry time its claim set: every later claim finds it due again. It holds
            // one slot while the six others go through the other, claimed two at a time. (The
            // job claimed with it may have started first: only its own runs are counted.)
            clock.advance(by: 10)
            #expect(runs.withLock { $0.filter { $0 == "slow" }.count } == 1)
            #expect(await eventually(timeout: .seconds(10)) { runs.withLock { $0.count } >= 7 })
        }
        #expect(try await fixture.schedule("slow", key: "slow"))
        for index in 1...6 { #expect(try await fixture.schedule("job \(index)", key: "\(index)")) }

        await runner.drain()
        #expect(runs.withLock { $0.sorted() } == (["slow"] + (1...6).map { "job \($0)" }).sorted())
        #expect(try await fixture.rows() == 0)
    }

    @Test func runningAsAServiceAJobDueNowRunsWithoutWaitingForThePoll() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let handler = Handler()
        var runner = JobRunner(
            database: fixture.database, queue: fixture.queue, entropy: SystemEntropy(), pollInterval: .seconds(3600),
            logger: Logger.test("test"))
        runner.on("remind") { (reminder: Reminder, attempt) in try handler.run(reminder, attempt) }
        let group = ServiceGroup(services: [runner], logger: Logger.test("test"))
        let task = Task { try await group.run() }
        #expect(try await fixture.schedule("now", key: "n"))
        // Under a full parallel test run this has taken over 5 s; a lost ring would wait the hour.
        #expect(await eventually(timeout: .seconds(30)) { handler.texts == ["now"] })
        await group.triggerGracefulShutdown()
        #expect((try? await task.value) != nil)
    }

    @Test func whatAJobRecordsCommitsWithItsCompletionAndAFailedWriteRetriesIt() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let runs = Mutex(0)
        var runner = JobRunner(
            database: fixture.database, queue: fixture.queue, entropy: SeededEntropy(seed: "jobs"),
            maxBackoff: 10, logger: Logger.test("test"))
        runner.complete("remind") { (reminder: Reminder, attempt) in
            let run = runs.withLock { runs in
                runs += 1
                return runs
            }
            let note: @Sendable (Database) throws -> Void = { db in
                try db.execute(sql: "INSERT INTO note (text) VALUES (?)", arguments: ["\(reminder.text) \(run)"])
            }
            switch reminder.text {
            case "partly":
                return attempt.number == 1
                    ? .retry(after: 5, "one device left", recording: note) : .done(recording: note)
            case "clash": return .done { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('taken')") }
            default: return .done(recording: note)
            }
        }
        func notes() async throws -> [String] {
            try await fixture.database.read { db in try String.fetchAll(db, sql: "SELECT text FROM note ORDER BY rowid")
            }
        }
        #expect(try await fixture.schedule("partly", key: "p"))
        await runner.runDue()
        #expect(try await notes() == ["partly 1"])
        #expect(try await fixture.rows() == 1)
        fixture.clock.advance(by: 5)
        await runner.runDue()
        #expect(try await notes() == ["partly 1", "partly 2"])
        #expect(try await fixture.rows() == 0)

        // A job whose own writes fail stays scheduled (retried), without harming its batch.
        try await fixture.database.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('taken')") }
        #expect(try await fixture.schedule("clash", key: "c"))
        #expect(try await fixture.schedule("fine", key: "f"))
        await runner.runDue()
        // (The two ran side by side: which was third is not fixed.)
        let after = try await notes()
        #expect(after.prefix(3) == ["partly 1", "partly 2", "taken"])
        #expect(after.count == 4 && after[3].hasPrefix("fine "))
        let left = try await fixture.database.read { db in
            try String.fetchAll(db, sql: "SELECT key FROM kit_job WHERE failed_at IS NULL")
        }
        #expect(left == ["c"])
    }

    @Test func aJobScheduledAgainDuringItsRunStaysAsScheduled() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let queue = fixture.queue
        let database = fixture.database
        var runner = JobRunner(
            database: database, queue: queue, entropy: SeededEntropy(seed: "jobs"), maxBackoff: 10,
            logger: Logger.test("test"))
        runner.complete("remind") { (reminder: Reminder, attempt) in
            let later = attempt.dueAt.addingTimeInterval(100)
            switch reminder.text {
            case "daily":
                // Plans its own next run in what it records, as streak's deadline job does.
                return .done { db in
                    try queue.schedule(
                        "remind", key: attempt.key, payload: reminder, at: later, onConflict: .move, in: db)
                }
            default:
                // Another write replaces it while it runs; then the run fails.
                _ = try await database.write { db in
                    try queue.schedule(
                        "remind", key: attempt.key, payload: Reminder(text: "replacement"), at: later,
                        onConflict: .replace, in: db)
                }
                throw JobFailure.retry(after: 1, "failed after its replacement")
            }
        }
        func job(_ key: String) async throws -> JobRecord? {
            try await database.read { db in try JobQueue.job("remind", key: key, in: db) }
        }
        #expect(try await fixture.schedule("daily", key: "d"))
        #expect(try await fixture.schedule("racing", key: "r"))
        let before = try await job("d")?.seq
        await runner.runDue()
        let now = fixture.clock.now()
        // Both stay, in the same row, as new jobs: due in 100 s, no attempt spent, no error.
        let daily = try #require(try await job("d"))
        #expect(daily.seq == before)
        #expect(daily.dueAt == now.addingTimeInterval(100) && daily.attempts == 0)
        let racing = try #require(try await job("r"))
        #expect(racing.dueAt == now.addingTimeInterval(100) && racing.attempts == 0 && racing.lastError == nil)
        #expect(try JSONCoding.sharedDecoder.decode(Reminder.self, from: racing.payload).text == "replacement")
    }

    @Test func aPostponedJobRunsAtItsNewTimeWithoutSpendingAnAttempt() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let runs = Mutex<[Int]>([])
        var runner = JobRunner(
            database: fixture.database, queue: fixture.queue, entropy: SeededEntropy(seed: "jobs"), maxAttempts: 2,
            logger: Logger.test("test"))
        let wake = fixture.clock.now().addingTimeInterval(8 * 3600)
        runner.complete("remind") { (_: Reminder, attempt) in
            let count = runs.withLock { runs in
                runs.append(attempt.number)
                return runs.count
            }
            // Postponed three times, more than `maxAttempts`: none of them is a failure.
            return count <= 3 ? .postpone(until: wake) : .done()
        }
        #expect(try await fixture.schedule("at night", key: "q"))
        await runner.runDue()
        fixture.clock.advance(by: 8 * 3600 - 1)
        await runner.runDue()
        #expect(runs.withLock { $0 } == [1])
        for _ in 0..<3 {
            fixture.clock.advance(by: 1)
            await runner.runDue()
        }
        #expect(runs.withLock { $0 } == [1, 1, 1, 1])
        #expect(try await fixture.rows() == 0)
        #expect(try await runner.stats()["remind"]?.failed == 0)
    }

    @Test func theGaugesCountFromTheDueIndexAloneAndBackOffWhenCountingIsSlow() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        // A million waiting jobs must not be read to count the few that are due or parked.
        let plans = try await fixture.database.read { db in
            try [(JobRunner.countDue, [Date(), Date()]), (JobRunner.countFailed, [])].map { sql, dates in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(dates)).map {
                    $0["detail"] as String
                }
            }
        }
        for plan in plans {
            #expect(plan.contains { $0.contains("USING COVERING INDEX kit_job_due") }, "\(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(plan)")
        }
        // The claim reads the due index in its order: with the kind before `seq` in the index,
        // every claim sorted all the jobs due at one instant (a million at a zone's 22:00).
        let claim = try await fixture.database.read { db in
            let statement = try JobRunner.due(kinds: ["remind", "other"], now: Date(), skipping: [7], limit: 200)
                .makePreparedRequest(db, forSingleResult: false).statement
            return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: statement.arguments)
                .map { $0["detail"] as String }
        }
        #expect(claim.contains { $0.contains("USING INDEX kit_job_due") }, "\(claim)")
        #expect(!claim.contains { $0.contains("TEMP B-TREE") }, "\(claim)")

        let schedule = JobRunner.GaugeSchedule(interval: .seconds(1))
        let start = ContinuousClock.now
        #expect(schedule.due(at: start))
        #expect(!schedule.due(at: start + .milliseconds(500)))
        schedule.took(.milliseconds(10), startedAt: start)
        #expect(schedule.due(at: start + .seconds(1)))
        // A reading that took 300 ms waits twenty times that before the next.
        schedule.took(.milliseconds(300), startedAt: start + .seconds(1))
        #expect(!schedule.due(at: start + .seconds(6)))
        #expect(schedule.due(at: start + .seconds(7)))
    }
}
