import Foundation
import ServiceHTTP
import TestSupport
import Testing

@testable import FeedService

/// Every endpoint of feed that takes JSON answers a broken or wrongly shaped body with 400
/// `MALFORMED_REQUEST` and a message, before it looks anything up.
@Suite struct MalformedBodyTests {
    @Test func votesAndPostsRefuseMalformedBodies() async throws {
        let harness = try ServiceHarness(.feed)
        let parts = try await FeedService.buildRouter(
            runtime: harness.runtime, reader: harness.reader, dependencies: FeedDependencies(media: .fixed([:])))
        #expect(
            try await harness.malformedBodyFailures(
                parts, routes: [(.put, "/v1/posts/\(UUID().uuidString.lowercased())/vote")]) == [])
        // Every field of a post is optional (a photo at a place, or words): an object of other
        // fields is well formed, and refused by the post's rules instead.
        #expect(
            try await harness.malformedBodyFailures(
                parts, routes: [(.post, "/v1/posts")],
                bodies: ["", "{", "null", "[]", "42", #"{"mediaId":7}"#, #"{"text":7}"#, #"{"mediaIds":"m"}"#]) == [])
    }
}
