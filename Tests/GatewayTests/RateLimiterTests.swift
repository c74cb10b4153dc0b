import Testing

@testable import Gateway

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
