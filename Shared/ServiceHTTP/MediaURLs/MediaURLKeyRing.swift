import Contracts
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// The media view keys a service signs view URLs with, fetched from media
/// (`GET /internal/media/url-keys`, over mutual TLS) at start and then every `interval`, so a
/// key media rotates in is used within an interval. Until the first answer views carry no URLs
/// (everything else in them stands). Media itself passes its own keys (``fixed(_:)``).
public final class MediaURLKeyRing: Sendable {
    private let state = Mutex<(keys: MediaURLKeys, signer: MediaURLSigner)?>(nil)
    let fetch: (@Sendable () async throws -> MediaURLKeys)?
    let interval: Duration
    let logger: Logger
    /// Whether the last fetch failed: a failure is logged once, not at every retry.
    private let failing = Atomic<Bool>(false)

    init(fetch: (@Sendable () async throws -> MediaURLKeys)?, interval: Duration, logger: Logger) {
        self.fetch = fetch
        self.interval = interval
        self.logger = logger
    }

    /// Keys fetched from media over `client`.
    public static func remote(
        _ client: InternalClient, interval: Duration = .seconds(60), logger: Logger
    ) -> MediaURLKeyRing {
        MediaURLKeyRing(
            fetch: { try await client.get(MediaURLKeys.self, from: .media, path: "/internal/media/url-keys") },
            interval: interval, logger: logger)
    }

    /// Keys known here and now (media's own, or a test's).
    public static func fixed(
        _ keys: MediaURLKeys, logger: Logger = Logger(label: "media-url-keys")
    ) throws
        -> MediaURLKeyRing
    {
        let ring = MediaURLKeyRing(fetch: nil, interval: .seconds(3600), logger: logger)
        try ring.use(keys)
        return ring
    }

    /// The signer of now; nil until the keys are known.
    public var current: MediaURLSigner? { state.withLock { $0?.signer } }

    /// The keys held now (what media hands the other services).
    public var keys: MediaURLKeys? { state.withLock { $0?.keys } }

    /// Signs with `keys` from now on.
    public func use(_ keys: MediaURLKeys) throws {
        // The same keys keep their signer, and with it the URLs it signed.
        if state.withLock({ $0?.keys == keys }) { return }
        let next = try MediaURLSigner(keys)
        state.withLock { $0 = (keys, next) }
    }

    /// Asks media for its keys once; a failure keeps the keys held.
    public func refresh() async {
        guard let fetch else { return }
        do {
            try use(try await fetch())
            if failing.exchange(false, ordering: .relaxed) { logger.info("media view keys fetched again") }
        } catch {
            // Media may simply not be up yet (services start in any order): noted, retried.
            if !failing.exchange(true, ordering: .relaxed) {
                logger.notice("media view keys not fetched yet; retrying", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The lifecycle service that keeps the keys fresh: every second until the first answer
    /// (media may start after this service), then every `interval`. Nothing for fixed keys.
    public var service: some Service { Refresher(ring: self) }

    struct Refresher: Service {
        let ring: MediaURLKeyRing

        func run() async {
            // A service that returns stops the group: fixed keys wait for the stop instead.
            guard ring.fetch != nil else { return (try? await gracefulShutdown()) ?? () }
            await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    await ring.refresh()
                    let wait: Duration = ring.current == nil ? .seconds(1) : ring.interval
                    guard (try? await Task.sleep(for: wait)) != nil else { return }
                }
            }
        }
    }
}
