import Contracts
import Foundation
import GRDB
import Logging
import ServiceHTTP
import ServiceLifecycle
import Synchronization

/// Fills a copy of another service's data (``ProfileMirror``, ``MediaMirror``) from the
/// owner's paged export, once: when the copy starts empty (a new service, or one added to a
/// deployment that already has users and media). Events keep it from then on, and those that
/// arrive while it fills are applied as they come: every row carries the owner's revision, and
/// a copy keeps the highest, so an export page older than an event changes nothing.
///
/// Each source's progress (`after`, the cursor of the next page) is kept in `kit_mirror_fill` in the
/// same transaction as its page, so a restart goes on where it stopped. An owner that is down
/// is asked again at the next interval.
public final class MirrorFill: Service, Sendable {
    /// Where a mirror's export is: `GET <path>?limit=&cursor=` on `owner`, a `Page<Item>` in
    /// the owner's id order whose `nextCursor` is asked for next (nil on the last page).
    public struct Source: Sendable {
        public let name: String
        public let owner: ServiceName
        public let path: String
    }

    /// One source: what fetches a page (after a cursor, at most a count) and applies its items.
    struct Job: Sendable {
        let source: Source
        let fetch:
            @Sendable (String?, Int) async throws -> (
                apply: @Sendable (Database) throws -> Void, next: String?, count: Int
            )
    }

    let database: DatabasePool
    let jobs: [Job]
    let interval: Duration
    let pageSize: Int
    let logger: Logger
    private let done = Atomic<Bool>(false)
    /// Whether the last attempt failed: a failure is logged once, not at every retry.
    private let failing = Atomic<Bool>(false)

    init(database: DatabasePool, jobs: [Job], interval: Duration, pageSize: Int, logger: Logger) {
        self.database = database
        self.jobs = jobs
        self.interval = interval
        self.pageSize = pageSize
        self.logger = logger
    }

    /// Fills the profiles copy (`profiles`) and the media copy (`media`) of a service that
    /// keeps them.
    public static func mirrors(
        profiles: Bool, media: Bool, database: DatabasePool, client: InternalClient, logger: Logger,
        interval: Duration = .seconds(5), pageSize: Int = 500
    ) -> MirrorFill {
        var jobs: [Job] = []
        if profiles {
            jobs.append(
                job(ProfileMirror.fill, client: client) { (item: ProfileChanged, db) in
                    try ProfileMirror.apply(item, in: db)
                })
        }
        if media {
            jobs.append(
                job(MediaMirror.fill, client: client) { (item: MediaDescribed, db) in
                    try MediaMirror.apply(item, in: db)
                })
        }
        return MirrorFill(database: database, jobs: jobs, interval: interval, pageSize: pageSize, logger: logger)
    }

    static func job<Item: Codable & Sendable>(
        _ source: Source, client: InternalClient, apply: @escaping @Sendable (Item, Database) throws -> Void
    ) -> Job {
        Job(source: source) { after, limit in
            var path = "\(source.path)?limit=\(limit)"
            if let after { path += "&cursor=\(after)" }
            let page = try await client.get(Page<Item>.self, from: source.owner, path: path)
            let items = page.items
            return ({ db in for item in items { try apply(item, db) } }, page.nextCursor, items.count)
        }
    }

    public func run() async {
        let service = self
        await PeriodicService(interval: interval) { await service.fillAll() }.run()
    }

    /// Fills every source that is not complete yet, page by page; true when all are.
    @discardableResult
    func fillAll() async -> Bool {
        if done.load(ordering: .relaxed) { return true }
        var complete = true
        for job in jobs {
            do {
                complete = try await fill(job) && complete
            } catch {
                complete = false
                // The owner may simply not be up yet (services start in any order): noted, retried.
                if !failing.exchange(true, ordering: .relaxed) {
                    logger.notice(
                        "mirror fill waits for its owner; retrying",
                        metadata: ["mirror": "\(job.source.name)", "error": "\(error)"])
                }
            }
        }
        if complete {
            done.store(true, ordering: .relaxed)
            failing.store(false, ordering: .relaxed)
        }
        return complete
    }

    /// Fills one source to its end; true when it is complete.
    private func fill(_ job: Job) async throws -> Bool {
        let name = job.source.name
        var state = try await database.tracedRead { db in try Self.state(name, in: db) }
        var pages = 0
        while !state.complete {
            let page = try await job.fetch(state.after, pageSize)
            state = (after: page.next ?? state.after, complete: page.next == nil)
            let next = state
            try await database.tracedWrite { db in
                try page.apply(db)
                try db.execute(
                    sql: """
                        INSERT INTO kit_mirror_fill (name, after, complete) VALUES (?, ?, ?)
                        ON CONFLICT(name) DO UPDATE SET after = excluded.after, complete = excluded.complete
                        """, arguments: [name, next.after, next.complete])
            }
            pages += 1
        }
        if pages > 0 { logger.info("mirror filled", metadata: ["mirror": "\(name)", "pages": "\(pages)"]) }
        return true
    }

    /// Where the fill of `name` stands.
    static func state(_ name: String, in db: Database) throws -> (after: String?, complete: Bool) {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT after, complete FROM kit_mirror_fill WHERE name = ?"), arguments: [name]
            )
        else { return (nil, false) }
        return (row["after"], row["complete"])
    }

    /// `kit_mirror_fill`, made by the first mirror's migration.
    static func registerState(in db: Database) throws {
        try db.create(table: "kit_mirror_fill", options: .ifNotExists) { table in
            table.primaryKey("name", .text)
            table.column("after", .text)
            table.column("complete", .boolean).notNull()
        }
    }
}
