import Foundation
import ServiceHTTP
import TestSupport
import Testing

@testable import FeedService

/// The kept rankings: a later page reads the kept one; a first page ranks afresh; each lasts
/// its lifetime; a reader's newer ranking of a list replaces the older; when full, the oldest goes.
@Suite struct ForYouRankingsTests {
    static func ranking(_ ids: [String]) -> [ForYouRanking.Ranked] {
        ForYouRanking.rank(
            ids.map {
                ForYouRanking.Candidate(
                    postId: $0, authorId: "a", createdAt: Date(timeIntervalSince1970: 0), likes: 0, replies: 0,
                    reposts: 0, source: .followed, affinity: 0)
            }, now: Date(timeIntervalSince1970: 0), seed: 1)
    }

    @Test func laterPagesReadTheKeptRankingUntilItExpiresAndTheOldestGoesFirst() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_000_000))
        let rankings = ForYouRankings(capacity: 2, lifetime: 600, clock: clock)
        func key(_ viewer: String) -> ForYouRankingKey { .init(viewer: viewer, seed: 1) }
        let first = await rankings.ranking(for: key("bob"), asOf: 5, fresh: true) { Self.ranking(["p1", "p2"]) }
        // A later page: kept, whatever would be ranked now.
        let kept = await rankings.ranking(for: key("bob"), asOf: 5, fresh: false) { Self.ranking(["p3"]) }
        #expect(kept == first)
        // A first page: ranked afresh, and kept in its place.
        let again = await rankings.ranking(for: key("bob"), asOf: 5, fresh: true) { Self.ranking(["p3"]) }
        #expect(again.map(\.candidate.postId) == ["p3"])
        // A first page as of a later time takes the place of bob's ranking: the one as of 5
        // is ranked again if its later pages are asked for.
        let newer = await rankings.ranking(for: key("bob"), asOf: 9, fresh: true) { Self.ranking(["p6"]) }
        #expect(newer.map(\.candidate.postId) == ["p6"])
        #expect(rankings.count == 1)
        let older = await rankings.ranking(for: key("bob"), asOf: 5, fresh: false) { Self.ranking(["p3"]) }
        #expect(older.map(\.candidate.postId) == ["p3"])
        #expect(rankings.count == 1)
        // Two more readers: the oldest (bob's) goes.
        clock.advance(by: 1)
        _ = await rankings.ranking(for: key("carol"), asOf: 5, fresh: true) { Self.ranking(["c"]) }
        clock.advance(by: 1)
        _ = await rankings.ranking(for: key("dave"), asOf: 5, fresh: true) { Self.ranking(["d"]) }
        #expect(rankings.count == 2)
        let remade = await rankings.ranking(for: key("bob"), asOf: 5, fresh: false) { Self.ranking(["p4"]) }
        #expect(remade.map(\.candidate.postId) == ["p4"])
        // Past its lifetime a ranking is made again.
        clock.advance(by: 601)
        let late = await rankings.ranking(for: key("bob"), asOf: 5, fresh: false) { Self.ranking(["p5"]) }
        #expect(late.map(\.candidate.postId) == ["p5"])
        let daveLate = await rankings.ranking(for: key("dave"), asOf: 5, fresh: false) { Self.ranking(["d2"]) }
        #expect(daveLate.map(\.candidate.postId) == ["d2"])
        // Expired ones are dropped when room is needed: never more than the capacity.
        #expect(rankings.count == 2)
    }
}
