import Foundation
import ServiceHTTP
import TestSupport
import Testing

@testable import StreakService

/// Every endpoint of streak that takes JSON answers a broken or wrongly shaped body with 400
/// `MALFORMED_REQUEST` and a message, before it looks anything up.
@Suite struct MalformedBodyTests {
    @Test func friendRequestsAndSnapsRefuseMalformedBodies() async throws {
        let harness = try ServiceHarness(.streak)
        let parts = try await StreakService.buildRouter(
            runtime: harness.runtime, reader: harness.reader,
            dependencies: StreakDependencies(
                media: .fixed([:]), users: .fixed([:]), searchUsers: { _ in [] },
                shareCards: { _ in throw CancellationError() }))
        #expect(
            try await harness.malformedBodyFailures(
                parts, routes: [(.post, "/v1/friends/requests"), (.post, "/v1/snaps")]) == [])
    }
}
