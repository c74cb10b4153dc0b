import Foundation

/// The ranked order for nearby posts: votes decayed by age. The seed names a "time-decay
/// algorithm" without its formula; this is Hacker News's gravity, the best known one:
///
///     score = (upvotes − downvotes + 1) / (age in hours + 2)^1.8
///
/// so a fresh post with a few votes passes an old one with many, and every post sinks as it
/// ages. A post voted below zero sinks further with age instead of rising towards zero (its
/// negative points are multiplied by the decay, not divided). Ties: newer first, then by id.
enum TimeDecayRanking {
    static let gravity = 1.8

    struct Candidate: Sendable, Equatable {
        var postId: String
        /// Up votes minus down votes.
        var votes: Int
        var createdAt: Date
    }

    static func score(_ candidate: Candidate, now: Date) -> Double {
        let hours = max(0, now.timeIntervalSince(candidate.createdAt) / 3600)
        let points = Double(candidate.votes) + 1
        let decay = pow(hours + 2, gravity)
        return points >= 0 ? points / decay : points * decay
    }

    /// The candidates' ids, best first, as of `now`.
    static func rank(_ candidates: [Candidate], now: Date) -> [String] {
        // Sorted as plain numbers with each candidate's place, so that the sort moves no ids
        // (a thousand candidates a first page) and holds no reference; ids are compared only
        // to break a tie.
        candidates.withUnsafeBufferPointer { candidates in
            candidates.indices
                .map { index in
                    let candidate = candidates[index]
                    return (score: score(candidate, now: now), createdAt: candidate.createdAt, index: index)
                }
                .sorted { first, second in
                    if first.score != second.score { return first.score > second.score }
                    if first.createdAt != second.createdAt { return first.createdAt > second.createdAt }
                    return candidates[first.index].postId > candidates[second.index].postId
                }
                .map { candidates[$0.index].postId }
        }
    }
}
