import Foundation
import ServiceHTTP
import TestSupport
import Testing

@testable import ModerationService

/// Every endpoint of moderation that takes JSON answers a broken or wrongly shaped body with 400
/// `MALFORMED_REQUEST` and a message, before it looks anything up.
@Suite struct MalformedBodyTests {
    @Test func reportsAndBlocksRefuseMalformedBodies() async throws {
        let harness = try ServiceHarness(.moderation)
        let parts = try await ModerationService.buildRouter(
            runtime: harness.runtime, reader: harness.reader,
            dependencies: ModerationDependencies(
                subjects: .fixed([]), users: .fixed([:]),
                accounts: ConsoleAccounts(signIn: { _, _ in throw ServiceError.forbidden }, end: { _, _ in })))
        #expect(
            try await harness.malformedBodyFailures(parts, routes: [(.post, "/v1/reports"), (.post, "/v1/blocks")])
                == [])
    }
}
