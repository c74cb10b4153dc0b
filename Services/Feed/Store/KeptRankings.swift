import Foundation
import ServiceHTTP
import Synchronization

/// Rankings already made (For You's, ranked nearby's), kept in memory for `lifetime` so a
/// reader's later pages (which rank as of the first page's time anyway) cost only their page,
/// and a vote or like between two pages cannot move a post across them (shown twice, or never).
/// One ranking is kept per key (a reader's list), with the time it ranks as of: a newer first
/// page's ranking takes the place of the older one, whose later pages, if still asked for, are
/// ranked again as of their time. At most `capacity` are kept; when full, the oldest made goes
/// (the first to expire). An expired one is never served. A restart only costs a ranking again.
final class KeptRankings<Key: Hashable & Sendable, Item: Sendable>: Sendable {
    private struct Entry {
        var ranking: [Item]
        /// The time the ranking is as of, in milliseconds.
        var asOf: Int64
        var madeAt: Date
    }

    private let entries = Mutex<[Key: Entry]>([:])
    let capacity: Int
    let lifetime: TimeInterval
    let clock: any WallClock

    init(capacity: Int = 500, lifetime: TimeInterval = 600, clock: any WallClock) {
        self.capacity = capacity
        self.lifetime = lifetime
        self.clock = clock
    }

    /// The ranking kept under `key` as of `asOf` (milliseconds), or the one `make` makes (then
    /// kept). A first page asks `fresh`: it is always ranked again (a seen signal sent just
    /// before counts).
    func ranking(
        for key: Key, asOf: Int64, fresh: Bool, make: () async throws -> [Item]
    ) async rethrows -> [Item] {
        let now = clock.now()
        let kept = entries.withLock { entries -> [Item]? in
            guard !fresh, let entry = entries[key], entry.asOf == asOf else { return nil }
            guard now.timeIntervalSince(entry.madeAt) < lifetime else {
                entries[key] = nil
                return nil
            }
            return entry.ranking
        }
        if let kept { return kept }
        let ranking = try await make()
        // What it replaced (a thousand ids) is let go once the lock is released.
        _ = entries.withLock { entries in
            // Only when full: the oldest goes (all last as long, so it is the first to expire).
            if entries[key] == nil, entries.count >= capacity,
                let oldest = entries.min(by: { $0.value.madeAt < $1.value.madeAt })
            {
                entries[oldest.key] = nil
            }
            return entries.updateValue(Entry(ranking: ranking, asOf: asOf, madeAt: now), forKey: key)
        }
        return ranking
    }

    /// How many rankings are kept now.
    var count: Int { entries.withLock { $0.count } }
}

/// For You's: a reader's ranking for a seed, as of the first page.
typealias ForYouRankings = KeptRankings<ForYouRankingKey, ForYouRanking.Ranked>

struct ForYouRankingKey: Hashable, Sendable {
    var viewer: String
    var seed: UInt64
}

/// Ranked nearby's: a reader's ranking of one circle, as of the first page.
typealias NearbyRankings = KeptRankings<NearbyRankingKey, String>

struct NearbyRankingKey: Hashable, Sendable {
    var viewer: String
    var latitude: Double
    var longitude: Double
    var radius: Double
}
