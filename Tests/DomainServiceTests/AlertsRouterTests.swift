import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import ServiceKit
import TestSupport
import Testing

@testable import AlertsService

@Suite struct AlertsRouterTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"

    /// Applies a `friend_request.sent` the way the inbox does.
    func deliver(_ harness: ServiceHarness, id: UUID, from: String, to: String, at date: Date) async throws {
        let envelope = EventEnvelope(
            id: id, type: FriendRequestSent.eventType, source: .streak, occurredAt: date,
            payload: FriendRequestSent(
                requestId: UUID().uuidString.lowercased(), fromUserId: from, fromDisplayName: "Bob", toUserId: to))
        try await harness.database().write { db in try AlertsStore.friendRequestSent(envelope, in: db) }
    }

    @Test func theNotificationCentreListsCountsAndMarksRead() async throws {
        let harness = try ServiceHarness(.alerts)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let alice = try await harness.token(for: Self.alice)
            let bob = try await harness.token(for: Self.bob)
            let start = Date()
            var ids: [UUID] = []
            for index in 0..<25 {
                let id = UUID()
                ids.append(id)
                try await deliver(
                    harness, id: id, from: Self.bob, to: Self.alice, at: start.addingTimeInterval(Double(index)))
            }
            // The same event delivered again makes no second notification.
            try await deliver(harness, id: ids[0], from: Self.bob, to: Self.alice, at: start)
            #expect(
                try await client.get("/v1/notifications/unread-count", token: alice).json(UnreadCount.self).count == 25)
            #expect(
                try await client.get("/v1/notifications/unread-count", token: bob).json(UnreadCount.self).count == 0)

            var listed: [AppNotification] = []
            var cursor: String?
            repeat {
                let page = try await client.get(
                    "/v1/notifications?limit=10" + (cursor.map { "&cursor=\($0)" } ?? ""), token: alice
                ).json(Page<AppNotification>.self)
                listed += page.items
                cursor = page.nextCursor
            } while cursor != nil
            #expect(listed.map(\.id) == ids.reversed().map { $0.uuidString.lowercased() })
            #expect(
                listed.allSatisfy {
                    $0.type == .friendRequest && $0.body == "Bob wants to be friends" && $0.readAt == nil
                })

            let first = listed[0].id
            #expect(try await client.request(.post, "/v1/notifications/\(first)/read", token: bob).status == .notFound)
            let read = try await client.request(.post, "/v1/notifications/\(first)/read", token: alice).json(
                AppNotification.self)
            #expect(read.readAt != nil)
            #expect(
                try await client.get("/v1/notifications/unread-count", token: alice).json(UnreadCount.self).count == 24)
            #expect(
                try await client.request(.post, "/v1/notifications/read-all", token: alice).json(MarkedRead.self)
                    .updated == 24)
            #expect(
                try await client.get("/v1/notifications/unread-count", token: alice).json(UnreadCount.self).count == 0)
            #expect(try await client.request(.post, "/v1/notifications/nope/read", token: alice).status == .notFound)
            #expect(try await client.get("/v1/notifications?cursor=zzz", token: alice).status == .badRequest)
            #expect(try await client.get("/v1/notifications").status == .unauthorized)
        }
    }
}
