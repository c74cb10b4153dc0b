import Contracts
import GRDB
import ServiceHTTP

/// A service's own copy of who blocks whom, kept from moderation's `user.blocked` and
/// `user.unblocked` events, so that a query that must leave blocked people out (a feed, a
/// friend request, later messages) never calls another service.
///
/// A service that needs it registers ``registerMigration(_:)`` among its migrations and
/// ``EventInbox/mirrorBlocks(onBlocked:onUnblocked:)`` on its inbox, then filters with
/// ``neitherBlocks(_:_:)`` in SQL or ``isBlocked(_:_:in:)``. `user.deleted` forgets the user's
/// blocks by itself (``EventInbox/onUserDeleted(erase:)``).
public enum BlockMirror {
    /// `kit.block-mirror.v1`: `kit_block`, keyed both ways round, so "did A block B" and "did
    /// anyone block B" are both index lookups. A service that kept a `block` table of its own
    /// before names it in `legacy`, with the name of its own migration that moves the rows over
    /// and drops it.
    public static func registerMigration(
        _ migrator: inout DatabaseMigrator, movingRowsFrom legacy: (table: String, migration: String)? = nil
    ) {
        migrator.registerMigration("kit.block-mirror.v1") { db in
            try db.create(table: BlockMirrorRecord.databaseTableName) { table in
                table.column("blocker_id", .text).notNull()
                table.column("blocked_id", .text).notNull()
                table.primaryKey(["blocker_id", "blocked_id"])
            }
            try db.create(
                index: "kit_block_by_blocked", on: BlockMirrorRecord.databaseTableName,
                columns: ["blocked_id", "blocker_id"])
        }
        guard let legacy else { return }
        migrator.registerMigration(legacy.migration) { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO kit_block (blocker_id, blocked_id) SELECT blocker_id, blocked_id FROM \(legacy.table);
                    DROP TABLE \(legacy.table);
                    """)
        }
    }

    /// SQL that is true when neither of two users has blocked the other. Each argument is an
    /// SQL expression: a named argument (`:viewer`) or a column (`p.author_id`).
    public static func neitherBlocks(_ one: String, _ other: String) -> String {
        """
        NOT EXISTS (SELECT 1 FROM kit_block b WHERE (b.blocker_id = \(one) AND b.blocked_id = \(other))
                                                OR (b.blocker_id = \(other) AND b.blocked_id = \(one)))
        """
    }

    /// Whether a block stands between the two users, either way round.
    public static func isBlocked(_ one: String, _ other: String, in db: Database) throws -> Bool {
        // A statement the connection keeps: alerts asks before every push with an actor.
        try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM kit_block WHERE (blocker_id = ?1 AND blocked_id = ?2)
                                                           OR (blocker_id = ?2 AND blocked_id = ?1))
                    """), arguments: [one, other]) ?? false
    }

    /// Those of `ids` between whom and `viewer` a block stands, either way round.
    public static func separated(
        from viewer: String, among ids: some Collection<String>, in db: Database
    ) throws
        -> Set<String>
    {
        try JSONList.selected(
            """
            SELECT blocked_id FROM kit_block WHERE blocker_id = ?1 AND blocked_id IN (SELECT value FROM json_each(?2))
            UNION SELECT blocker_id FROM kit_block WHERE blocked_id = ?1 AND blocker_id IN (SELECT value FROM json_each(?2))
            """, viewer: viewer, among: ids, in: db)
    }

    /// Those of `ids` whom `viewer` blocked.
    public static func blocked(
        by viewer: String, among ids: some Collection<String>, in db: Database
    ) throws
        -> Set<String>
    {
        try JSONList.selected(
            "SELECT blocked_id FROM kit_block WHERE blocker_id = ?1 AND blocked_id IN (SELECT value FROM json_each(?2))",
            viewer: viewer, among: ids, in: db)
    }

    /// `user.blocked`: the block is remembered (once, however often the event comes).
    public static func apply(_ event: UserBlocked, in db: Database) throws {
        try BlockMirrorRecord(blockerId: event.blockerId, blockedId: event.blockedId).insert(db, onConflict: .ignore)
    }

    /// `user.unblocked`: the block is forgotten.
    public static func apply(_ event: UserUnblocked, in db: Database) throws {
        _ = try BlockMirrorRecord.deleteOne(db, key: ["blocker_id": event.blockerId, "blocked_id": event.blockedId])
    }

    /// Forgets every block by or of `userID` (account deletion).
    public static func erase(userID: String, in db: Database) throws {
        typealias Columns = BlockMirrorRecord.Columns
        guard try db.tableExists(BlockMirrorRecord.databaseTableName) else { return }
        _ = try BlockMirrorRecord.filter(Columns.blockerId == userID || Columns.blockedId == userID).deleteAll(db)
    }
}

extension EventInbox {
    /// Keeps the service's ``BlockMirror`` from `user.blocked` and `user.unblocked`. The
    /// optional handlers run after the mirror changed, in the same transaction (streak breaks
    /// the pair's streak when they block each other).
    public mutating func mirrorBlocks(
        onBlocked: @escaping @Sendable (UserBlocked, Database) throws -> Void = { _, _ in },
        onUnblocked: @escaping @Sendable (UserUnblocked, Database) throws -> Void = { _, _ in }
    ) {
        on(UserBlocked.self) { envelope, db in
            try BlockMirror.apply(envelope.payload, in: db)
            try onBlocked(envelope.payload, db)
        }
        on(UserUnblocked.self) { envelope, db in
            try BlockMirror.apply(envelope.payload, in: db)
            try onUnblocked(envelope.payload, db)
        }
    }
}
