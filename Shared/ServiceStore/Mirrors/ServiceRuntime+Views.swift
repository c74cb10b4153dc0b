import Contracts
import GRDB
import ServiceHTTP
import ServiceLifecycle

/// What a service that shows people or media gets from the kit: ``Views`` over its own copies,
/// and the workers that keep them (the view keys' refresher, the copies' first fill).
public struct ViewParts: Sendable {
    public let views: Views
    public let services: [any Service]
}

extension ServiceRuntime {
    /// Views over the copies `database` keeps (``ProfileMirror`` when `profiles`,
    /// ``MediaMirror`` when `media`; both registered among its migrations and on its inbox),
    /// with view URLs signed under media's keys, fetched from media, and the copies filled
    /// from their owners' exports when they start empty. A runtime given fixed keys (a test
    /// without media) signs with those and fills nothing.
    public func makeViews(database: DatabasePool, profiles: Bool = true, media: Bool = true) -> ViewParts {
        if let viewKeys { return ViewParts(views: Views(keys: viewKeys, clock: clock), services: []) }
        let ring = MediaURLKeyRing.remote(client, logger: logger)
        let fill = MirrorFill.mirrors(
            profiles: profiles, media: media, database: database, client: client, logger: logger)
        return ViewParts(views: Views(keys: ring, clock: clock), services: [ring.service, fill])
    }
}
