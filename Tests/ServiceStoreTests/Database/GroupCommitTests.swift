import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

@testable import ServiceHTTP
@testable import ServiceStore

@Suite struct GroupCommitTests {
    /// Counts the commits that inserted into `item`.
    final class Commits: TransactionObserver, Sendable {
        private let state = Mutex((changed: false, count: 0))
        var count: Int { state.withLock { $0.count } }
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { eventKind.tableName == "item" }
        func databaseDidChange(with event: DatabaseEvent) { state.withLock { $0.changed = true } }
        func databaseDidCommit(_ db: Database) {
            state.withLock { state in
                if state.changed { state.count += 1 }
                state.changed = false
            }
        }
        func databaseDidRollback(_ db: Database) { state.withLock { $0.changed = false } }
    }

    @Test func writesThatWaitCommitTogetherAndOneThatFailsIsRolledBackAlone() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("db-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (pool, commits) = try Self.itemStore(in: directory)
        let group = GroupCommit(pool)

        // Hold the writer, so that what comes next has to wait for it.
        let (release, holder) = await Self.holdWriter(of: pool)
        // The first write leads: it takes the group of one waiting and waits for the writer.
        let first = Task { try await group.write { db in try Self.insert("a", in: db) } }
        #expect(await eventually { group.queue.waiting == 0 && group.queue.committing })
        // Nine more wait behind it, the fifth a duplicate name.
        let names = ["b", "c", "d", "e", "a", "f", "g", "h", "i"]
        let rest = names.map { name in Task { try await group.write { db in try Self.insert(name, in: db) } } }
        #expect(await eventually { group.queue.waiting == names.count })
        release.signal()
        try await holder.value

        let firstID = try await first.value
        var results: [Result<Int64, any Error>] = []
        for task in rest { results.append(await task.result) }
        #expect(firstID > 0)
        #expect(results.filter { (try? $0.get()) != nil }.count == 8)
        guard case .failure(let error) = results[4] else {
            Issue.record("the duplicate was committed")
            return
        }
        #expect((error as? DatabaseError)?.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
        let stored = try await pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM item ORDER BY name") }
        #expect(stored == ["a", "b", "c", "d", "e", "f", "g", "h", "i"])
        // The first write alone, then the nine together.
        #expect(commits.count == 2)
        // The leader resumes its callers before it looks once more and finds nothing waiting.
        #expect(await eventually { group.queue.waiting == 0 && !group.queue.committing })
    }

    /// The after-commit work that ran, in order.
    final class Done: Sendable {
        private let state = Mutex<[String]>([])
        var names: [String] { state.withLock { $0 } }
        func add(_ name: String) { state.withLock { $0.append(name) } }
    }

    @Test func tracedWritesAreGroupedAndAfterCommitWorkRunsOnlyForThoseKept() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("db-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (pool, commits) = try Self.itemStore(in: directory)
        let group = GroupCommit.shared(for: pool)
        #expect(GroupCommit.shared(for: pool) === group)
        let done = Done()

        let (release, holder) = await Self.holdWriter(of: pool)
        let first = Task {
            try await pool.tracedWrite { db in
                let id = try Self.insert("a", in: db)
                GroupCommit.afterCommit(of: db) { done.add("a") }
                return id
            }
        }
        #expect(await eventually { group.queue.waiting == 0 && group.queue.committing })
        // Three wait behind it; the second asks for its work and then fails (a duplicate name).
        let rest = ["b", "a", "c"].map { name in
            Task {
                try await pool.tracedWrite { db in
                    GroupCommit.afterCommit(of: db) { done.add(name) }
                    return try Self.insert(name, in: db)
                }
            }
        }
        #expect(await eventually { group.queue.waiting == 3 })
        // Nothing runs before its write is on disk.
        #expect(done.names.isEmpty)
        release.signal()
        try await holder.value

        _ = try await first.value
        var results: [Result<Int64, any Error>] = []
        for task in rest { results.append(await task.result) }
        #expect((try? results[0].get()) != nil)
        #expect((try? results[1].get()) == nil)
        #expect((try? results[2].get()) != nil)
        // The kept writes' work ran (the first's before the group's), the rolled-back one's never.
        #expect(done.names.first == "a")
        #expect(done.names.sorted() == ["a", "b", "c"])
        #expect(commits.count == 2)
        let stored = try await pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM item ORDER BY name") }
        #expect(stored == ["a", "b", "c"])
    }

    /// Parts of one write in savepoints (a batch of events): a part that fails leaves neither
    /// its rows nor its after-commit work, alone in its transaction or grouped with others,
    /// and the kept parts' work runs only once the write is on disk.
    @Test func aFailedSavepointOfAWriteDropsItsAfterCommitWorkAloneOrGrouped() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("db-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (pool, _) = try Self.itemStore(in: directory)
        let group = GroupCommit.shared(for: pool)
        let done = Done()
        /// Inserts each name in a savepoint that asks for its work first; a duplicate fails.
        @Sendable func parts(_ names: [String], in db: Database) -> [String] {
            names.filter { name in
                let inserted = try? GroupCommit.savepoint(in: db) { () throws -> Int64 in
                    GroupCommit.afterCommit(of: db) { done.add(name) }
                    return try Self.insert(name, in: db)
                }
                return inserted != nil
            }
        }

        // Alone: the first part's work waits for the commit; the duplicate's never runs.
        let alone = try await pool.tracedWrite { db in
            let kept = parts(["a", "a", "b"], in: db)
            #expect(done.names.isEmpty)
            return kept
        }
        #expect(alone == ["a", "b"])
        #expect(done.names == ["a", "b"])

        // Grouped with another write, both waiting behind a first one that waits for the writer.
        @Sendable func single(_ name: String) async throws {
            _ = try await pool.tracedWrite { db in
                GroupCommit.afterCommit(of: db) { done.add(name) }
                return try Self.insert(name, in: db)
            }
        }
        let (release, holder) = await Self.holdWriter(of: pool)
        let first = Task { try await single("e") }
        #expect(await eventually { group.queue.waiting == 0 && group.queue.committing })
        let batch = Task { try await pool.tracedWrite { db in parts(["c", "b", "d"], in: db) } }
        #expect(await eventually { group.queue.waiting == 1 })
        let other = Task { try await single("f") }
        #expect(await eventually { group.queue.waiting == 2 })
        release.signal()
        try await holder.value
        try await first.value
        #expect(try await batch.value == ["c", "d"])
        try await other.value
        #expect(done.names.sorted() == ["a", "b", "c", "d", "e", "f"])
        let stored = try await pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM item ORDER BY name") }
        #expect(stored == ["a", "b", "c", "d", "e", "f"])
    }

    /// A store with one table, `item` (unique names), and a count of the commits that change it.
    static func itemStore(in directory: URL) throws -> (DatabasePool, Commits) {
        let pool = try ServiceDatabase.open(at: directory.appendingPathComponent("x.sqlite")) { migrator in
            migrator.registerMigration("x.v1") { db in
                try db.create(table: "item") { table in
                    table.primaryKey("id", .integer)
                    table.column("name", .text).notNull().unique()
                }
            }
        }
        let commits = Commits()
        pool.add(transactionObserver: commits, extent: .databaseLifetime)
        return (pool, commits)
    }

    /// Holds `pool`'s writer (returns once it is held) until the semaphore is signalled.
    static func holdWriter(of pool: DatabasePool) async -> (release: DispatchSemaphore, holder: Task<Void, any Error>) {
        let held = Held()
        let release = DispatchSemaphore(value: 0)
        let holder = Task {
            try await pool.write { _ in
                held.set()
                release.wait()
            }
        }
        #expect(await eventually { held.isSet })
        return (release, holder)
    }

    final class Held: Sendable {
        private let state = Mutex(false)
        var isSet: Bool { state.withLock { $0 } }
        func set() { state.withLock { $0 = true } }
    }

    static func insert(_ name: String, in db: Database) throws -> Int64 {
        try db.execute(sql: "INSERT INTO item (name) VALUES (?)", arguments: [name])
        return db.lastInsertedRowID
    }
}
