import Foundation
import JWTKit
import Synchronization

/// Public keys identified by `kid`, loaded from their publisher and loaded again when a token
/// names a `kid` the set does not hold: how Pinhole's verifiers follow auth's key rotation and
/// auth follows Apple's, with nothing restarted.
///
/// Lookups of known keys take a lock for a read. Unknown ones go through ``KeyRefresher``:
/// concurrent misses share one load, a `kid` already looked for within `refetchInterval` is
/// not looked for again (a stream of made-up key ids cannot hammer the publisher), and loads
/// are at least `minimumGap` apart (a new key met right after a load waits for the gap rather
/// than being refused).
public final class KeySet: Sendable {
    /// A loaded key set and the ids it holds.
    public struct Loaded: Sendable {
        public let keys: JWTKeyCollection
        public let ids: Set<String>

        public init(keys: JWTKeyCollection, ids: Set<String>) {
            self.keys = keys
            self.ids = ids
        }
    }

    private let current = Mutex<Loaded?>(nil)
    private let refresher: KeyRefresher

    /// `load` fetches and parses the publisher's keys; it throws ``ServiceError``s
    /// (`UPSTREAM_UNAVAILABLE` when the publisher cannot be reached).
    public init(
        clock: any WallClock, refetchInterval: TimeInterval, minimumGap: TimeInterval = 1,
        load: @escaping @Sendable () async throws -> Loaded
    ) {
        self.refresher = KeyRefresher(
            clock: clock, refetchInterval: refetchInterval, minimumGap: minimumGap, load: load)
    }

    /// The keys, holding `kid`; nil when the publisher does not have it either.
    public func keys(for kid: String) async throws -> JWTKeyCollection? {
        if let known = current.withLock({ $0.flatMap { $0.ids.contains(kid) ? $0.keys : nil } }) { return known }
        if let loaded = try await refresher.refresh(for: kid) { current.withLock { $0 = loaded } }
        return current.withLock { $0.flatMap { $0.ids.contains(kid) ? $0.keys : nil } }
    }
}

/// Loads key sets one at a time for ``KeySet``.
actor KeyRefresher {
    private let clock: any WallClock
    private let refetchInterval: TimeInterval
    private let minimumGap: TimeInterval
    private let load: @Sendable () async throws -> KeySet.Loaded
    private var lastFetch: Date?
    private var triedKeyIDs: [String: Date] = [:]
    private var inFlight: Task<KeySet.Loaded, any Error>?

    init(
        clock: any WallClock, refetchInterval: TimeInterval, minimumGap: TimeInterval,
        load: @escaping @Sendable () async throws -> KeySet.Loaded
    ) {
        self.clock = clock
        self.refetchInterval = refetchInterval
        self.minimumGap = min(minimumGap, refetchInterval)
        self.load = load
    }

    /// A freshly loaded key set, or nil when `kid` was looked for too recently to try again.
    func refresh(for kid: String) async throws -> KeySet.Loaded? {
        if let inFlight {
            return try await inFlight.value
        }
        let now = clock.now()
        if let tried = triedKeyIDs[kid], now.timeIntervalSince(tried) < refetchInterval {
            return nil
        }
        if triedKeyIDs.count > 1000 {
            triedKeyIDs = triedKeyIDs.filter { now.timeIntervalSince($0.value) < refetchInterval }
        }
        triedKeyIDs[kid] = now
        let wait = lastFetch.map { minimumGap - now.timeIntervalSince($0) } ?? 0
        let task = Task {
            if wait > 0 { try await Task.sleep(for: .milliseconds(Int64(wait * 1000))) }
            return try await self.load()
        }
        inFlight = task
        defer { inFlight = nil }
        do {
            let loaded = try await task.value
            lastFetch = clock.now()
            return loaded
        } catch {
            // A load that failed has not looked: the next token naming `kid` tries again (after
            // the gap), instead of being refused as forged until `refetchInterval` has passed.
            lastFetch = clock.now()
            triedKeyIDs[kid] = nil
            throw error
        }
    }
}
