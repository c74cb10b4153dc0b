import GRDB

/// The feed service's database. It holds the kit's outbox, inbox and idempotency tables from
/// the first start; the domain's own tables arrive with the domain, as new migrations here.
struct FeedStore: Sendable {
    let database: DatabasePool

    /// Append-only; never edit a migration that has shipped.
    static func registerMigrations(_ migrator: inout DatabaseMigrator) {}
}
