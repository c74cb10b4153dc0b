import Foundation
import Hummingbird
import HummingbirdTesting
import ServiceKit
import TestSupport
import Testing

@testable import ModerationService

@Suite struct ModerationRouterTests {
    static let people = (0..<6).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
    static let author = people[0]
    static let post = "40000000-0000-4000-8000-000000000001"

    func withModeration(
        _ body: @escaping @Sendable (ServiceHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        let harness = try ServiceHarness(.moderation)
        let dependencies = ModerationDependencies(
            posts: .fixed([Self.post: PostSummary(id: Self.post, authorId: Self.author, hidden: false)]),
            users: .fixed(
                Dictionary(uniqueKeysWithValues: Self.people.map { ($0, UserSummary(id: $0, displayName: "x")) })))
        let parts = try await ModerationService.buildRouter(
            runtime: harness.runtime, reader: harness.reader, dependencies: dependencies)
        try await harness.test(parts) { client in try await body(harness, client) }
    }

    @Test func threeDistinctReportersHideAPostOnce() async throws {
        try await withModeration { harness, client in
            let first = try await harness.token(for: Self.people[1])
            struct Loose: Encodable {
                var targetType: String? = "post"
                var targetId: String? = ModerationRouterTests.post
                var reason: String? = "spam"
                var details: String?
            }
            let bad: [(Loose, HTTPResponse.Status)] = [
                (Loose(reason: "boring"), .badRequest), (Loose(reason: nil), .badRequest),
                (Loose(targetType: "comment"), .badRequest), (Loose(targetId: "p1"), .badRequest),
                (Loose(details: String(repeating: "d", count: 1001)), .badRequest),
                (Loose(targetId: "40000000-0000-4000-8000-000000000999"), .notFound),
            ]
            for (body, status) in bad {
                #expect(try await client.post("/v1/reports", body, token: first).status == status, "\(body)")
            }
            let own = try await client.post("/v1/reports", Loose(), token: try await harness.token(for: Self.author))
            #expect(own.error?.code == .validationFailed)

            for (index, reporter) in Self.people[1...4].enumerated() {
                let token = try await harness.token(for: reporter)
                let body = ReportCreate(
                    targetType: .post, targetId: Self.post, reason: ReportReason.allCases[index % 4])
                #expect(try await client.post("/v1/reports", body, token: token).status == .created)
                #expect(try await client.post("/v1/reports", body, token: token).status == .conflict)
                let hidden = try harness.outboxEvents(ContentHidden.self)
                #expect(hidden.count == (index >= 2 ? 1 : 0))
            }
            #expect(
                try harness.outboxEvents(ContentHidden.self) == [
                    ContentHidden(targetType: .post, targetId: Self.post, reportCount: 3)
                ])
        }
    }

    @Test func blocksAreIdempotentAndAnnouncedOnce() async throws {
        try await withModeration { harness, client in
            let me = try await harness.token(for: Self.people[1])
            let target = Self.people[2]
            #expect(
                try await client.post("/v1/blocks", BlockCreate(userId: Self.people[1]), token: me).status
                    == .badRequest)
            #expect(
                try await client.post("/v1/blocks", BlockCreate(userId: "someone"), token: me).status == .badRequest)
            #expect(try await client.post("/v1/blocks", BlockCreate(userId: Self.post), token: me).status == .notFound)
            #expect(try await client.post("/v1/blocks", BlockCreate(userId: target), token: me).status == .created)
            #expect(try await client.post("/v1/blocks", BlockCreate(userId: target), token: me).status == .ok)
            #expect(
                try harness.outboxEvents(UserBlocked.self) == [
                    UserBlocked(blockerId: Self.people[1], blockedId: target)
                ])
            #expect(
                try await client.get("/v1/blocks", token: me).json(Page<Block>.self).items.map(\.userId) == [target])
            #expect(
                try await client.get("/v1/blocks", token: try await harness.token(for: target)).json(Page<Block>.self)
                    .items.isEmpty)
            #expect(try await client.request(.delete, "/v1/blocks/\(target)", token: me).status == .noContent)
            #expect(try await client.request(.delete, "/v1/blocks/\(target)", token: me).status == .notFound)
            #expect(try harness.outboxTypes() == ["user.blocked", "user.unblocked"])
        }
    }
}
