import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceKit
import TestSupport
import Testing

@testable import FeedService
@testable import ModerationService
@testable import StreakService

/// Every new endpoint that takes JSON answers a broken or wrongly shaped body with 400
/// `MALFORMED_REQUEST` and a message, before it looks anything up.
@Suite struct MalformedBodyTests {
    static let bodies = [
        "", "{", "null", "[]", "42", #"{"mediaId":7}"#, #"{"userId":["a"]}"#, #"{"targetType":"post","targetId":1}"#,
    ]

    func check(
        _ parts: ServiceParts<ServiceRequestContext>, _ harness: ServiceHarness, routes: [(HTTPRequest.Method, String)],
        bodies: [String] = bodies
    ) async throws {
        try await harness.test(parts) { client in
            let token = try await harness.token(for: "00000000-0000-4000-8000-00000000000a")
            for (method, path) in routes {
                for body in bodies {
                    let response = try await client.execute(
                        uri: path, method: method,
                        headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                        body: ByteBuffer(string: body))
                    #expect(response.status == .badRequest, "\(method) \(path) with \(body)")
                    #expect(response.error?.code == .malformedRequest, "\(method) \(path) with \(body)")
                    #expect(response.error?.message.isEmpty == false)
                }
            }
        }
    }

    @Test func feed() async throws {
        let harness = try ServiceHarness(.feed)
        let parts = try await FeedService.buildRouter(
            runtime: harness.runtime, reader: harness.reader, dependencies: FeedDependencies(media: .fixed([:])))
        try await check(parts, harness, routes: [(.put, "/v1/posts/\(UUID().uuidString.lowercased())/vote")])
        // Every field of a post is optional (Unum's or Agora's): an object of other fields is
        // well formed, and refused by the post's rules instead.
        try await check(
            parts, harness, routes: [(.post, "/v1/posts")],
            bodies: ["", "{", "null", "[]", "42", #"{"mediaId":7}"#, #"{"text":7}"#, #"{"mediaIds":"m"}"#])
    }

    @Test func streak() async throws {
        let harness = try ServiceHarness(.streak)
        let parts = try await StreakService.buildRouter(
            runtime: harness.runtime, reader: harness.reader,
            dependencies: StreakDependencies(
                media: .fixed([:]), users: .fixed([:]), searchUsers: { _ in [] },
                shareCards: { _ in throw CancellationError() }))
        try await check(parts, harness, routes: [(.post, "/v1/friends/requests"), (.post, "/v1/snaps")])
    }

    @Test func moderation() async throws {
        let harness = try ServiceHarness(.moderation)
        let parts = try await ModerationService.buildRouter(
            runtime: harness.runtime, reader: harness.reader,
            dependencies: ModerationDependencies(
                subjects: .fixed([]), users: .fixed([:]),
                accounts: ConsoleAccounts(signIn: { _, _ in throw ServiceError.forbidden }, end: { _, _ in })))
        try await check(parts, harness, routes: [(.post, "/v1/reports"), (.post, "/v1/blocks")])
    }
}
