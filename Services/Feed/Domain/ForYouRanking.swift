import Foundation

/// The For You ranking, all of it on the server: a candidate's score is its
/// engagement, decayed by age, weighted by where it came from and by the reader's affinity for
/// its author, with a small seeded jitter that reorders near-equals. The same candidates, time
/// and seed always rank the same (the jitter hashes the seed and the post id with FNV-1a, not
/// Swift's per-process `Hasher`).
enum ForYouRanking {
    /// Why a post is a candidate.
    enum Source: String, Sendable, CaseIterable {
        /// Someone the reader follows posted or reposted it.
        case followed
        /// Someone followed by people the reader follows posted it.
        case followsOfFollows = "follows_of_follows"
        /// Engaging lately, whoever posted it.
        case popular
    }

    struct Candidate: Sendable, Equatable {
        var postId: String
        var authorId: String
        var createdAt: Date
        var likes: Int
        var replies: Int
        var reposts: Int
        var source: Source
        /// The reader's affinity for the author (their likes, replies, reposts and dwell on the
        /// author's posts, less skips), 0 when none.
        var affinity: Double
    }

    /// A ranked candidate, with each factor of its score (the operator's debug view).
    struct Ranked: Sendable, Equatable {
        var candidate: Candidate
        var score: Double
        var engagement: Double
        var decay: Double
        var sourceWeight: Double
        var affinityWeight: Double
        var jitter: Double

        /// Why it was picked, in the app's words.
        var reasons: [String] {
            var reasons: [String] =
                switch candidate.source {
                case .followed: ["You follow the author"]
                case .followsOfFollows: ["People you follow follow the author"]
                case .popular: ["Popular right now"]
                }
            if candidate.affinity >= 3 { reasons.append("You often engage with the author") }
            if engagement >= 3 { reasons.append("Lots of likes, replies and reposts") }
            return reasons
        }
    }

    /// A post loses half its weight every 12 hours.
    static let halfLife: TimeInterval = 12 * 3600
    /// Candidates older than this are not considered.
    static let window: TimeInterval = 72 * 3600
    /// Affinity counts up to this much.
    static let maxAffinity = 20.0

    static func weight(of source: Source) -> Double {
        switch source {
        case .followed: 1.5
        case .followsOfFollows: 1.2
        case .popular: 1.0
        }
    }

    static func rank(_ candidates: [Candidate], now: Date, seed: UInt64) -> [Ranked] {
        candidates.map { candidate in
            let engagement = log(
                1 + Double(candidate.likes) + 2 * Double(candidate.replies) + 3 * Double(candidate.reposts))
            let age = max(0, now.timeIntervalSince(candidate.createdAt))
            let decay = pow(0.5, age / halfLife)
            let sourceWeight = weight(of: candidate.source)
            let affinityWeight = 1 + min(max(candidate.affinity, 0), maxAffinity) / 10
            let jitter = 1 + 0.05 * unit(seed: seed, candidate.postId)
            let score = (1 + engagement) * decay * sourceWeight * affinityWeight * jitter
            return Ranked(
                candidate: candidate, score: score, engagement: engagement, decay: decay, sourceWeight: sourceWeight,
                affinityWeight: affinityWeight, jitter: jitter)
        }
        .sorted { ($0.score, $0.candidate.postId) > ($1.score, $1.candidate.postId) }
    }

    /// A number in [0, 1) fixed by the seed and the id.
    static func unit(seed: UInt64, _ id: String) -> Double {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in withUnsafeBytes(of: seed.littleEndian, Array.init) + Array(id.utf8) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return Double(hash >> 11) / Double(1 << 53)
    }
}
