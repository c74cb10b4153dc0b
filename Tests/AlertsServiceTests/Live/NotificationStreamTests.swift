import AsyncHTTPClient
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceHTTP
import ServiceStore
import Synchronization
import TestSupport
import Testing

@testable import AlertsService

/// `GET /v1/notifications/stream` over a real socket, fed through alerts' own inbox and
/// database pool as events arrive in production.
@Suite struct NotificationStreamTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"

    /// A stream of alerts' notifications, decoded.
    struct Reader: Sendable {
        struct Event: Sendable {
            var id: String?
            var name: String
            var message: NotificationStreamMessage
        }

        let stream: EventStreamReader

        init(port: Int, token: String, query: String = "") async throws {
            stream = try await EventStreamReader(
                url: "http://127.0.0.1:\(port)/v1/notifications/stream\(query)", token: token)
        }

        var status: Int { stream.status }
        var contentType: String? { stream.contentType }
        var ended: Bool { stream.ended }
        var events: [Event] {
            stream.events.map { event in
                Event(
                    id: event.id, name: event.name,
                    message: (try? JSONCoding.decoder().decode(
                        NotificationStreamMessage.self, from: Data(event.data.utf8)))
                        ?? NotificationStreamMessage(type: .resync, unreadCount: -1))
            }
        }

        func waitFor(_ count: Int) async -> Bool { await stream.waitFor(count) }
        func stop() async { await stream.stop() }
    }

    /// Alerts live, its inbox and its streams, with the clients' tokens.
    struct Setup: Sendable {
        let harness: ServiceHarness
        let events: AlertsEventFeed
        let port: Int
        let client: any TestClientProtocol
        var pool: DatabasePool { events.database }
        var streams: LiveStreams { events.streams }

        static func run(_ body: @escaping @Sendable (Setup) async throws -> Void) async throws {
            let harness = try ServiceHarness(
                .alerts, config: ["alerts.stream.heartbeatSeconds": "1"])
            let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
            let events = try AlertsEventFeed(parts: parts, clock: harness.clock)
            try await harness.test(parts, live: true) { client in
                let port = try #require(client.port)
                // Ended as alerts ends them at shutdown, whatever the test left open.
                defer { events.streams.endAll() }
                try await body(Setup(harness: harness, events: events, port: port, client: client))
            }
        }

        /// Applies an event through the inbox, as `/internal/events` does.
        @discardableResult
        func deliver(_ payload: some DomainEvent, from source: ServiceName) async throws -> String {
            try await events.deliver(payload, from: source)
        }

        func friendRequest(to user: String) async throws -> String {
            try await deliver(
                FriendRequestSent(
                    requestId: UUID().uuidString.lowercased(), fromUserId: NotificationStreamTests.bob,
                    fromDisplayName: "Bob", toUserId: user),
                from: .streak)
        }
    }

    @Test func newAndReadNotificationsReachEveryOpenStreamOfTheirUserOnly() async throws {
        try await Setup.run { setup in
            let alice = try await setup.harness.token(for: Self.alice)
            let bob = try await setup.harness.token(for: Self.bob, session: "bob-phone")
            let phone = try await Reader(port: setup.port, token: alice)
            let laptop = try await Reader(port: setup.port, token: alice)
            let bobs = try await Reader(port: setup.port, token: bob)
            #expect(phone.status == 200 && phone.contentType == "text/event-stream")
            for reader in [phone, laptop, bobs] { #expect(await reader.waitFor(1)) }
            #expect(phone.events.first?.message == NotificationStreamMessage(type: .unread, unreadCount: 0))

            let sending = Date()
            let first = try await setup.friendRequest(to: Self.alice)
            let second = try await setup.friendRequest(to: Self.alice)
            for reader in [phone, laptop] { #expect(await reader.waitFor(3)) }
            for reader in [phone, laptop] {
                let made = reader.events.dropFirst().prefix(2)
                #expect(made.map(\.name) == ["notification", "notification"])
                #expect(made.map(\.id) == [first, second])
                #expect(made.map { $0.message.notification?.id } == [first, second])
                #expect(made.map(\.message.unreadCount) == [1, 2])
                #expect(made.first?.message.notification?.link == "/friends/requests")
                #expect(made.first?.message.notification?.title == "New friend request")
                #expect(made.allSatisfy { Self.committed($0.message, between: sending, and: Date()) })
            }

            // Read on one device: every stream of hers hears it, with the new count.
            let reading = Date()
            let read = try await setup.client.request(.post, "/v1/notifications/\(first)/read", token: alice)
            #expect(read.status == .ok)
            for reader in [phone, laptop] { #expect(await reader.waitFor(4)) }
            #expect(Self.committed(phone.events[3].message, between: reading, and: Date()))
            #expect(
                Self.unstamped(phone.events[3].message)
                    == NotificationStreamMessage(type: .read, ids: [first], unreadCount: 1))
            let all = try await setup.client.request(.post, "/v1/notifications/read-all", token: alice)
            #expect(all.status == .ok)
            #expect(await laptop.waitFor(5))
            #expect(
                Self.unstamped(laptop.events[4].message)
                    == NotificationStreamMessage(type: .read, ids: [second], unreadCount: 0))

            // Bob heard none of it; his own arrives.
            let his = try await setup.friendRequest(to: Self.bob)
            #expect(await bobs.waitFor(2))
            #expect(bobs.events.map(\.id) == [nil, his])

            // A client that goes is forgotten: at once over HTTP/2 (its stream closes), by the next
            // heartbeat over HTTP/1.1 (as here, beating every second; the second write after the
            // close is the one that fails, and a loaded CI machine took over 5 s for it).
            for reader in [phone, laptop, bobs] { await reader.stop() }
            #expect(await eventually(timeout: .seconds(20)) { setup.streams.count == 0 })
            #expect(bobs.events.count == 2, "heartbeats are comments, not events")
        }
    }

    /// Whether `message` says it was committed within `start...end` (the stamp is rounded to
    /// the millisecond, hence the half a millisecond either side).
    static func committed(_ message: NotificationStreamMessage, between start: Date, and end: Date) -> Bool {
        guard let stamp = message.committedAt else { return false }
        return start.addingTimeInterval(-0.0005) <= stamp && stamp <= end.addingTimeInterval(0.0005)
    }

    /// `message` without its commit stamp, to compare with one written out.
    static func unstamped(_ message: NotificationStreamMessage) -> NotificationStreamMessage {
        var message = message
        message.committedAt = nil
        return message
    }

    @Test func aReconnectGetsWhatItMissedAndAnEndedSessionClosesItsStreams() async throws {
        try await Setup.run { setup in
            let alice = try await setup.harness.token(for: Self.alice)
            let seen = try await setup.friendRequest(to: Self.alice)
            let missed = [try await setup.friendRequest(to: Self.alice), try await setup.friendRequest(to: Self.alice)]

            let again = try await Reader(port: setup.port, token: alice, query: "?after=\(seen)")
            #expect(await again.waitFor(3))
            #expect(again.events.map(\.id) == missed + [nil])
            #expect(again.events.last?.message == NotificationStreamMessage(type: .unread, unreadCount: 3))
            #expect(again.events.allSatisfy { $0.message.committedAt == nil }, "a replay carries no commit stamp")
            // Committed while it was open: sent once, not again by the replay.
            let live = try await setup.friendRequest(to: Self.alice)
            #expect(await again.waitFor(4))
            #expect(again.events.compactMap(\.id) == missed + [live])
            #expect(again.events.last?.message.committedAt != nil)

            // Someone else's notification id, or a malformed one, replays nothing / is refused.
            let stranger = try await Reader(
                port: setup.port, token: alice, query: "?after=\(UUID().uuidString.lowercased())")
            #expect(await stranger.waitFor(1))
            #expect(stranger.events.map(\.name) == ["unread"])
            let malformed = try await Reader(port: setup.port, token: alice, query: "?after=%27%20OR%201")
            #expect(malformed.status == 400)
            await malformed.stop()

            // The session ends (logout elsewhere): its streams close; another session's stay.
            let other = try await Reader(
                port: setup.port, token: try await setup.harness.token(for: Self.alice, session: "tablet"))
            #expect(await other.waitFor(1))
            _ = try await setup.deliver(
                SessionEnded(userId: Self.alice, sessionIds: ["session-1"], reason: .logout), from: .auth)
            #expect(await eventually(timeout: .seconds(10)) { again.ended && stranger.ended })
            #expect(!other.ended)
            #expect(setup.streams.count == 1)
            for reader in [again, stranger, other] { await reader.stop() }
        }
    }

    @Test func aHeadOfTheStreamOpensNothing() async throws {
        try await Setup.run { setup in
            let alice = try await setup.harness.token(for: Self.alice)
            // More than the sixteen streams a user may hold: a HEAD answers the GET's head and
            // subscribes to nothing.
            for _ in 0..<20 {
                let head = try await setup.client.execute(
                    uri: "/v1/notifications/stream", method: .head, headers: [.authorization: "Bearer \(alice)"])
                #expect(head.status == .ok && head.body.readableBytes == 0)
                #expect(head.headers[.contentType] == "text/event-stream")
            }
            #expect(setup.streams.count == 0)
            let refused = try await setup.client.execute(
                uri: "/v1/notifications/stream?after=x", method: .head, headers: [.authorization: "Bearer \(alice)"])
            #expect(refused.status == .badRequest)
            let reader = try await Reader(port: setup.port, token: alice)
            #expect(await reader.waitFor(1))
            #expect(setup.streams.count == 1)
            await reader.stop()
        }
    }

    @Test func aStreamEndsWhenItsAccessTokenExpires() async throws {
        try await Setup.run { setup in
            let alice = try await setup.harness.token(for: Self.alice)
            // Opened a second before the (15-minute) token expires.
            setup.harness.clock.advance(by: 15 * 60 - 1)
            let reader = try await Reader(port: setup.port, token: alice)
            #expect(reader.status == 200)
            #expect(await eventually(timeout: .seconds(10)) { reader.ended })
            #expect(reader.events.map(\.name) == ["unread"])
            await reader.stop()
        }
    }

    @Test func aUserMayHoldSixteenStreamsTheProcessItsLimitAndAFullBufferEndsOne() async throws {
        let streams = LiveStreams(perUserLimit: 16, processLimit: 18, bufferLimit: 2)
        let open = (0..<16).compactMap { _ in try? streams.subscribe(user: "u", session: "s") }
        #expect(open.count == 16)
        #expect(throws: LiveStreams.Refusal.userLimit) { try streams.subscribe(user: "u", session: "s") }
        let other = try streams.subscribe(user: "v", session: "t")
        let third = try streams.subscribe(user: "w", session: "x")
        // 18 open: the process is full for everyone.
        #expect(throws: LiveStreams.Refusal.processLimit) { try streams.subscribe(user: "y", session: "z") }
        open[0].close()
        third.close()
        #expect(await eventually(timeout: .seconds(5)) { streams.count == 16 }, "\(streams.count) open")
        other.close()
        let next = try streams.subscribe(user: "u", session: "s")
        // Nobody reads `next`: the third message overflows its buffer and ends it.
        let message = NotificationStreamMessage(type: .unread, unreadCount: 1)
        streams.publish([message, message, message], to: "u")
        var received = 0
        for await _ in next.messages { received += 1 }
        #expect(received == 2)
    }
}
