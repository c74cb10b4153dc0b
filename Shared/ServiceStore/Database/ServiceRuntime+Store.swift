import Foundation
import GRDB
import Hummingbird
import ServiceHTTP

/// What a service with a database gets from the runtime: its database, routes whose creating
/// endpoints honour `Idempotency-Key`, the outbox, the job queue and their workers.
extension ServiceRuntime {
    /// This service's database at `<data.dir>/<name>/<name>.sqlite`, migrated.
    public func openDatabase(registerMigrations: (inout DatabaseMigrator) -> Void) throws -> DatabasePool {
        let file = try settings.ownDirectory().appendingPathComponent("\(settings.name.rawValue).sqlite")
        return try ServiceDatabase.open(at: file, registerMigrations: registerMigrations)
    }

    /// A service's router and route groups: tokens verified by `verifier` (default:
    /// ``makeTokenVerifier(source:sessions:checkSessions:sessionsFreshFor:)``), idempotent
    /// answers and readiness in `database`.
    public func makeRoutes(
        database: DatabasePool, verifier: TokenVerifier? = nil
    ) -> (router: Router<ServiceRequestContext>, routes: ServiceRoutes<ServiceRequestContext>) {
        let router = makeRouter(context: ServiceRequestContext.self)
        let routes = makeRoutes(
            on: router, verifier: verifier ?? makeTokenVerifier(), idempotent: idempotency(in: database),
            readiness: ["database": Self.databaseCheck(database)])
        return (router, routes)
    }

    /// What makes a group honour `Idempotency-Key` (``IdempotencyMiddleware``), its answers
    /// kept in `database`: for ``ServiceRoutes``.
    public func idempotency<Context: ServiceRequestContextProtocol>(
        in database: DatabasePool
    ) -> (RouterGroup<Context>, _ maxBodyBytes: Int) -> RouterGroup<Context> {
        { [clock] group, maxBodyBytes in
            group.group().add(
                middleware: IdempotencyMiddleware(database: database, clock: clock, maxBodyBytes: maxBodyBytes))
        }
    }

    /// An outbox for events this service produces.
    public func makeOutbox() -> Outbox {
        Outbox(source: settings.name, clock: clock, entropy: entropy)
    }

    /// The lifecycle service that delivers what `outbox` stored in `database`.
    public func makeOutboxDispatcher(database: DatabasePool, outbox: Outbox) -> OutboxDispatcher {
        OutboxDispatcher(
            database: database, client: client, outbox: outbox, maxBackoff: settings.outboxMaxBackoff, logger: logger)
    }

    /// The durable job queue of this service (schedule in transactions on its database).
    public func makeJobQueue() -> JobQueue {
        JobQueue(clock: clock)
    }

    /// The lifecycle service that runs the jobs of `queue`; register handlers on it first.
    public func makeJobRunner(database: DatabasePool, queue: JobQueue, concurrency: Int = 16) -> JobRunner {
        JobRunner(database: database, queue: queue, entropy: entropy, concurrency: concurrency, logger: logger)
    }

    /// A readiness check that the database answers.
    public static func databaseCheck(_ database: DatabasePool) -> HealthController.Check {
        {
            (try? await database.tracedRead { db in try Int.fetchOne(db.cachedStatement(sql: "SELECT 1")) }) == 1
        }
    }
}
