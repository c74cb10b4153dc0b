import Foundation
import Testing

@testable import ServiceHTTP

@Suite struct RateLimiterTests {
    let policy = RatePolicy(name: "write", limit: 5, window: 10)

    @Test func allowsTheBurstThenRefusesWithTheTimeToWait() {
        let limiter = RateLimiter()
        for expectedRemaining in [4, 3, 2, 1, 0] {
            let decision = limiter.check(key: "alice", policy: policy, now: 1000)
            #expect(decision.allowed)
            #expect(decision.remaining == expectedRemaining)
        }
        let refused = limiter.check(key: "alice", policy: policy, now: 1000)
        #expect(!refused.allowed)
        #expect(refused.retryAfter == 2)  // one emission interval: 10 s / 5
        #expect(refused.header(for: policy) == "\"write\";r=0;t=10")
        #expect(policy.policyHeader == "\"write\";q=5;w=10")
    }

    @Test func refillsAtTheSustainedRate() {
        let limiter = RateLimiter()
        for _ in 0..<5 { _ = limiter.check(key: "alice", policy: policy, now: 1000) }
        #expect(!limiter.check(key: "alice", policy: policy, now: 1001.9).allowed)
        #expect(limiter.check(key: "alice", policy: policy, now: 1002).allowed)
        #expect(!limiter.check(key: "alice", policy: policy, now: 1002).allowed)
        // After a full window of silence the whole burst is back.
        for _ in 0..<5 { #expect(limiter.check(key: "alice", policy: policy, now: 1100).allowed) }
    }

    @Test func keysAndPoliciesAreIndependent() {
        let limiter = RateLimiter()
        for _ in 0..<5 { _ = limiter.check(key: "alice", policy: policy, now: 1000) }
        #expect(limiter.check(key: "bob", policy: policy, now: 1000).allowed)
        #expect(limiter.check(key: "alice", policy: RatePolicy(name: "read", limit: 1, window: 1), now: 1000).allowed)
    }

    @Test func sweepingExpiredKeysChangesNoDecision() {
        let limiter = RateLimiter(sweepThreshold: 10)
        for index in 0..<50 { _ = limiter.check(key: "k\(index)", policy: policy, now: 1000) }
        for _ in 0..<4 { _ = limiter.check(key: "busy", policy: policy, now: 1003) }
        // By 1009 everyone but "busy" has expired; "busy" keeps its state through the sweep.
        for index in 0..<20 { _ = limiter.check(key: "late\(index)", policy: policy, now: 1009) }
        #expect(limiter.check(key: "busy", policy: policy, now: 1009).remaining == 3)
    }
}

@Suite struct SlidingWindowTests {
    let policy = RatePolicy(name: "challenges", limit: 3, window: 3600)
    let now = Date(timeIntervalSince1970: 10_000)

    @Test func countsOnlyTheWindowAndSaysWhatIsLeft() {
        let old = now.addingTimeInterval(-3600)  // exactly a window ago: out
        let decision = policy.decide(after: [old, now.addingTimeInterval(-10)], now: now)
        #expect(decision.allowed)
        #expect(decision.remaining == 1)
        #expect(decision.headers(for: policy)[.retryAfter] == nil)
    }

    @Test func aFullWindowWaitsForItsOldestToLeave() {
        let times = [-3000.0, -100, -50].map { now.addingTimeInterval($0) }
        let refused = policy.decide(after: times.reversed(), now: now)
        #expect(!refused.allowed)
        #expect(refused.retryAfter == 600)  // the one 3000 s old leaves in 600 s
        #expect(refused.resetAfter == 3550)  // all three are gone in 3550 s
        let headers = refused.headers(for: policy)
        #expect(headers[.retryAfter] == "600")
        #expect(headers[.rateLimit] == "\"challenges\";r=0;t=3550")
        #expect(headers[.rateLimitPolicy] == "\"challenges\";q=3;w=3600")
        #expect(policy.decide(after: times, now: now.addingTimeInterval(600)).allowed)
    }
}
