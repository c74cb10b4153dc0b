import Contracts
import Foundation
import Synchronization

/// Auth's view of sessions, as the token verifier of each service needs it: whether the
/// session behind a token is still live, whether it is limited (duress), and the user's roles.
///
/// A token alone cannot say any of this: a session can be logged out, or a role revoked,
/// while its access token is still within its fifteen minutes. Answers are kept for
/// `freshFor` seconds, so a session costs one lookup per interval per service rather than one
/// per request; concurrent requests for the same session share one lookup. When auth cannot
/// be reached, an answer up to `staleFor` seconds old is used rather than refusing everyone.
public final class SessionStateCache: Sendable {
    private let lookup: Lookup<SessionState>
    private let clock: any WallClock
    private let freshFor: TimeInterval
    private let staleFor: TimeInterval
    private let capacity: Int
    private let entries = Mutex([String: Entry]())
    private let fetcher: Fetcher

    struct Entry: Sendable {
        let state: SessionState?
        let fetchedAt: Date
    }

    public init(
        lookup: Lookup<SessionState>, clock: any WallClock, freshFor: TimeInterval = 5, staleFor: TimeInterval = 900,
        capacity: Int = 50_000
    ) {
        self.lookup = lookup
        self.clock = clock
        self.freshFor = freshFor
        self.staleFor = staleFor
        self.capacity = capacity
        self.fetcher = Fetcher(lookup: lookup)
    }

    /// The live session `id`, or nil when it has ended or never existed.
    public func state(of id: String) async throws -> SessionState? {
        let now = clock.now()
        let cached = entries.withLock { $0[id] }
        if let cached, now.timeIntervalSince(cached.fetchedAt) < freshFor { return cached.state }
        let state: SessionState?
        do {
            state = try await fetcher.fetch(id)
        } catch {
            if let cached, now.timeIntervalSince(cached.fetchedAt) < staleFor { return cached.state }
            throw error
        }
        let fetchedAt = clock.now()
        let (capacity, staleFor) = (self.capacity, self.staleFor)
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { fetchedAt.timeIntervalSince($0.value.fetchedAt) < staleFor }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[id] = Entry(state: state, fetchedAt: fetchedAt)
        }
        return state
    }

    /// One lookup in flight per session id.
    actor Fetcher {
        let lookup: Lookup<SessionState>
        var inFlight: [String: Task<SessionState?, any Error>] = [:]

        init(lookup: Lookup<SessionState>) {
            self.lookup = lookup
        }

        func fetch(_ id: String) async throws -> SessionState? {
            if let task = inFlight[id] { return try await task.value }
            let lookup = self.lookup
            let task = Task { try await lookup.find(id) }
            inFlight[id] = task
            defer { inFlight[id] = nil }
            return try await task.value
        }
    }
}
