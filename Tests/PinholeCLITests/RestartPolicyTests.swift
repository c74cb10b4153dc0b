import Testing

@testable import PinholeCLI

/// How long `pinhole up` waits before starting a process again that exited on its own.
@Suite struct RestartPolicyTests {
    @Test func theWaitDoublesWithEachQuickFailureUpToTheLongest() {
        let policy = RestartPolicy(giveUpAfter: 5)
        #expect((1...7).map { policy.delay(quickFailures: $0) } == [1, 2, 4, 8, 16, 30, 30].map { .seconds($0) })
    }

    @Test func aRunThatWasNotQuickWaitsTheFirstDelay() {
        let policy = RestartPolicy(giveUpAfter: 0, firstDelay: .milliseconds(250))
        #expect(policy.delay(quickFailures: 0) == .milliseconds(250))
    }
}
