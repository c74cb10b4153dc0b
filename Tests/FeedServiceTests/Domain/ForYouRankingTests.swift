import Foundation
import Testing

@testable import FeedService

/// The For You score: engagement, decay, source and affinity, and a seed that only reorders
/// near-equals, always the same way.
@Suite struct ForYouRankingTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func candidate(
        _ id: String, hoursOld: Double = 1, likes: Int = 0, replies: Int = 0, reposts: Int = 0,
        source: ForYouRanking.Source = .followed, affinity: Double = 0
    ) -> ForYouRanking.Candidate {
        ForYouRanking.Candidate(
            postId: id, authorId: "author-\(id)", createdAt: now.addingTimeInterval(-hoursOld * 3600), likes: likes,
            replies: replies, reposts: reposts, source: source, affinity: affinity)
    }

    @Test func theSameCandidatesTimeAndSeedRankTheSameAndAnotherSeedOnlyReordersNearEquals() {
        let equals = (0..<20).map { Self.candidate("p\($0)") }
        let once = ForYouRanking.rank(equals, now: Self.now, seed: 7).map(\.candidate.postId)
        #expect(ForYouRanking.rank(equals.reversed(), now: Self.now, seed: 7).map(\.candidate.postId) == once)
        #expect(ForYouRanking.rank(equals, now: Self.now, seed: 8).map(\.candidate.postId) != once)
        // A clearly better post stays first whatever the seed.
        let better = equals + [Self.candidate("hit", likes: 40, replies: 10)]
        for seed in [0, 1, 99, UInt64.max] {
            #expect(ForYouRanking.rank(better, now: Self.now, seed: seed).first?.candidate.postId == "hit")
        }
        #expect(ForYouRanking.unit(seed: 7, "p1") == ForYouRanking.unit(seed: 7, "p1"))
        #expect((0..<1000).map { ForYouRanking.unit(seed: UInt64($0), "x") }.allSatisfy { (0..<1).contains($0) })
    }

    @Test func ageHalvesTheWeightEveryTwelveHoursAndSourceAndAffinityWeigh() throws {
        let ranked = ForYouRanking.rank(
            [
                Self.candidate("new", hoursOld: 0), Self.candidate("day", hoursOld: 24),
                Self.candidate("popular", hoursOld: 0, source: .popular),
                Self.candidate("liked-author", hoursOld: 0, affinity: 10),
                Self.candidate("capped", hoursOld: 0, affinity: 500),
            ], now: Self.now, seed: 1)
        let by = Dictionary(uniqueKeysWithValues: ranked.map { ($0.candidate.postId, $0) })
        let new = try #require(by["new"])
        #expect(abs(try #require(by["day"]).decay - 0.25) < 1e-9 && new.decay == 1)
        #expect(new.sourceWeight == 1.5 && by["popular"]?.sourceWeight == 1.0)
        #expect(by["liked-author"]?.affinityWeight == 2 && by["capped"]?.affinityWeight == 3)
        #expect(ranked.first?.candidate.postId == "capped" && ranked.last?.candidate.postId == "day")
        #expect(by["liked-author"]?.reasons == ["You follow the author", "You often engage with the author"])
        #expect(by["popular"]?.reasons == ["Popular right now"])
        // Engagement: likes count once, replies twice, reposts three times.
        let engaged = ForYouRanking.rank(
            [Self.candidate("e", likes: 1, replies: 1, reposts: 1)], now: Self.now, seed: 1)[0]
        #expect(abs(engaged.engagement - log(7)) < 1e-9)
    }
}
