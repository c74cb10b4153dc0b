import Foundation
import ServiceHTTP
import Synchronization

/// Rankings already made (For You's, ranked nearby's), kept in memory for `lifetime` so a
/// reader's later pages (which rank as of the first page's time anyway) cost only their page,
/// and a vote or like between two pages cannot move a post across them (shown twice, or never).
/// At most `capacity` rankings are kept; when full, the expired go, then the oldest made. An
/// expired one is never served. A restart only costs a ranking again.
final class KeptRankings<Key: Hashable & Sendable, Item: Sendable>: Sendable {
    private struct Entry {
        var ranking: [Item]
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

    /// The ranking kept under `key`, or the one `make` makes (then kept). A first page asks
    /// `fresh`: it is always ranked again (a seen signal sent just before counts).
    func ranking(for key: Key, fresh: Bool, make: () async throws -> [Item]) async rethrows -> [Item] {
        let now = clock.now()
        let kept = entries.withLock { entries -> [Item]? in
            guard !fresh, let entry = entries[key] else { return nil }
            guard now.timeIntervalSince(entry.madeAt) < lifetime else {
                entries[key] = nil
                return nil
            }
            return entry.ranking
        }
        if let kept { return kept }
        let ranking = try await make()
        entries.withLock { entries in
            // Only when full: the expired go, then (still full) the oldest.
            if entries[key] == nil, entries.count >= capacity {
                entries = entries.filter { now.timeIntervalSince($0.value.madeAt) < lifetime }
                while entries.count >= capacity, let oldest = entries.min(by: { $0.value.madeAt < $1.value.madeAt }) {
                    entries[oldest.key] = nil
                }
            }
            entries[key] = Entry(ranking: ranking, madeAt: now)
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
    /// The first page's time, in milliseconds.
    var asOf: Int64
}

/// Ranked nearby's: a reader's ranking of one circle, as of the first page.
typealias NearbyRankings = KeptRankings<NearbyRankingKey, String>

struct NearbyRankingKey: Hashable, Sendable {
    var viewer: String
    var latitude: Double
    var longitude: Double
    var radius: Double
    /// The first page's time, in milliseconds.
    var asOf: Int64
}
