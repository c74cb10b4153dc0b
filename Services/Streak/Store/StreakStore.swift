import GRDB

/// The streak service's database. It holds the kit's outbox, inbox and idempotency tables from
/// the first start; the domain's own tables arrive with the domain, as new migrations here.
struct StreakStore: Sendable {
    let database: DatabasePool

    /// Append-only; never edit a migration that has shipped.
    static func registerMigrations(_ migrator: inout DatabaseMigrator) {}
}
