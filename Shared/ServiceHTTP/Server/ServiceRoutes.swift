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
    /// Makes a group idempotent (the store layer's `IdempotencyMiddleware` over the service's
    /// database); nil where nothing is, as in the gateway.
    let makeIdempotent: ((RouterGroup<Context>, _ maxBodyBytes: Int) -> RouterGroup<Context>)?

    /// Groups on `router`: `authenticated` verifies tokens with `verifier`; `idempotent` adds
    /// `Idempotency-Key` handling to a group (nil where no route needs it).
    public init(
        router: Router<Context>, verifier: TokenVerifier,
        idempotent: ((RouterGroup<Context>, _ maxBodyBytes: Int) -> RouterGroup<Context>)? = nil
    ) {
        self.open = router.group()
        self.authenticated = router.group().add(middleware: AuthenticationMiddleware(verifier: verifier))
        self.authenticatedWhileSuspended = router.group().add(
            middleware: AuthenticationMiddleware(verifier: verifier, allowsSuspended: true))
        self.makeIdempotent = idempotent
    }

    /// `group` with `Idempotency-Key` handling, for creating endpoints: a retry with the same
    /// key and body gets the first answer back. `maxBodyBytes` bounds the bodies it reads to
    /// fingerprint them.
    public func idempotent(_ group: RouterGroup<Context>, maxBodyBytes: Int = 1 << 20) -> RouterGroup<Context> {
        guard let makeIdempotent else { preconditionFailure("idempotent routes need the service's database") }
        return makeIdempotent(group, maxBodyBytes)
    }
}
