import GRDB
import Hummingbird

/// Where controllers register their routes. Every controller, in every executable, has the
/// same shape: `func addRoutes(to routes: ServiceRoutes<…>)`, registering absolute paths
/// (`/v1/posts/:id`) on one of these groups with a method of its own (`use: show`).
public struct ServiceRoutes<Context: ServiceRequestContextProtocol> {
    /// Routes that check no access token: public routes (sign-in, presigned URLs, webhooks
    /// with their own secret) and internal routes (`/internal/...`), which check the caller's
    /// certificate with ``PeerIdentity``.
    public let open: RouterGroup<Context>
    /// Routes behind ``AuthenticationMiddleware``: every request acts for a verified user.
    public let authenticated: RouterGroup<Context>
    /// Like `authenticated`, but open to a suspended user's writes too: what touches no one
    /// else's screen (ending sessions, deleting the account, appealing, devices, reading and
    /// clearing notifications) and what keeps them safe (blocks, mutes, duress alerts).
    public let authenticatedWhileSuspended: RouterGroup<Context>
    let database: DatabasePool?
    let clock: any WallClock

    /// Groups on `router`: `authenticated` verifies tokens with `verifier`; `database` keeps
    /// the answers of idempotent routes (nil where there are none, as in the gateway).
    public init(router: Router<Context>, verifier: TokenVerifier, database: DatabasePool?, clock: any WallClock) {
        self.open = router.group()
        self.authenticated = router.group().add(middleware: AuthenticationMiddleware(verifier: verifier))
        self.authenticatedWhileSuspended = router.group().add(
            middleware: AuthenticationMiddleware(verifier: verifier, allowsSuspended: true))
        self.database = database
        self.clock = clock
    }

    /// `group` with `Idempotency-Key` handling (see ``IdempotencyMiddleware``), for creating
    /// endpoints: a retry with the same key and body gets the first answer back.
    /// `maxBodyBytes` bounds the bodies it reads to fingerprint them.
    public func idempotent(_ group: RouterGroup<Context>, maxBodyBytes: Int = 1 << 20) -> RouterGroup<Context> {
        guard let database else { preconditionFailure("idempotent routes need the service's database") }
        return group.group().add(
            middleware: IdempotencyMiddleware(database: database, clock: clock, maxBodyBytes: maxBodyBytes))
    }
}
