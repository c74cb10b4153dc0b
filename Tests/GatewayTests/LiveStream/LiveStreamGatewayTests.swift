import Foundation
import NIOCore
import NIOHTTP1
import ServiceHTTP
import TestSupport
import Testing

@testable import Gateway

/// `GET /v1/notifications/stream` as a WebSocket through the gateway, in front of the real
/// auth and alerts services. Serialized: with the 130 sockets of one test being opened, a
/// refused socket of the other was once in four runs not closed within its 10 s (cause not
/// found yet; see the closing note of issue 13).
@Suite(.serialized) struct LiveStreamGatewayTests {
    func message(_ text: String) throws -> NotificationStreamMessage {
        try JSONCoding.decoder().decode(NotificationStreamMessage.self, from: Data(text.utf8))
    }

    @Test func aWebSocketCarriesTheStreamAndIsRefusedWithACodeAClientCanActOn() async throws {
        let harness = try await GatewayHarness.start(gateway: ["limits.liveStreamsPerUser": "2"], alerts: true)
        do {
            let ws = harness.gatewayURL.replacingOccurrences(of: "http://", with: "ws://")
            let alice = try await harness.signUp("alice@example.com")
            let aliceID = try await harness.client.call(.GET, harness.url("/v1/me"), token: alice.accessToken)
                .decode(UserProfile.self).id

            let phone = LiveSocket(url: ws + "/v1/notifications/stream", token: alice.accessToken)
            #expect(await phone.waitFor(1))
            #expect(try message(phone.messages[0]) == NotificationStreamMessage(type: .unread, unreadCount: 0))

            // A friend request reaches alerts (as streak's outbox delivers it): the socket hears it.
            let envelope = EventEnvelope(
                id: UUID(), type: FriendRequestSent.eventType, source: .streak, occurredAt: Date(),
                payload: FriendRequestSent(
                    requestId: UUID().uuidString.lowercased(), fromUserId: UUID().uuidString.lowercased(),
                    fromDisplayName: "Bob", toUserId: aliceID))
            let delivered = try await TestHTTP.withClient(dataDirectory: harness.directory.url, identity: .streak) {
                try await $0.call(.POST, harness.alertsURL + "/internal/events", json: envelope)
            }
            #expect(delivered.status == 200, "\(delivered.text)")
            #expect(await phone.waitFor(2))
            let notification = try message(phone.messages[1])
            #expect(notification.type == .notification && notification.unreadCount == 1)
            #expect(notification.notification?.id == envelope.id.uuidString.lowercased())

            // Reconnecting after it: nothing replayed but the count.
            let again = LiveSocket(
                url: ws + "/v1/notifications/stream?after=\(envelope.id.uuidString.lowercased())",
                token: alice.accessToken)
            #expect(await again.waitFor(1))
            #expect(try again.messages.map(message) == [NotificationStreamMessage(type: .unread, unreadCount: 1)])

            // A third at once is one too many (limits.liveStreamsPerUser = 2): 4429.
            let third = LiveSocket(url: ws + "/v1/notifications/stream", token: alice.accessToken)
            #expect(await third.waitForEnd())
            #expect(third.closeCode == 4429, "\(third.failure ?? "-") \(third.messages) \(third.ended)")

            // No token, or a forged one: 4401 (refresh and reconnect).
            let anonymous = LiveSocket(url: ws + "/v1/notifications/stream", token: nil)
            #expect(await anonymous.waitForEnd())
            #expect(anonymous.closeCode == 4401)
            let forged = LiveSocket(url: ws + "/v1/notifications/stream", token: alice.accessToken + "x")
            #expect(await forged.waitForEnd())
            #expect(forged.closeCode == 4401)

            // Only the stream upgrades: elsewhere the upgrade is refused before it happens.
            let elsewhere = LiveSocket(url: ws + "/v1/notifications", token: alice.accessToken)
            #expect(await elsewhere.waitForEnd())
            #expect(elsewhere.failure != nil && elsewhere.messages.isEmpty)

            // A client that leaves frees its place.
            await phone.stop()
            await again.stop()
            let readmitted = await eventually(timeout: .seconds(10), every: .milliseconds(200)) {
                let later = LiveSocket(url: ws + "/v1/notifications/stream", token: alice.accessToken)
                let admitted = await later.waitFor(1, timeout: .seconds(2))
                await later.stop()
                return admitted
            }
            #expect(readmitted)

            // The duress alerts' spelling of the channel, with its tenant key: the same stream.
            let alertsChannel = LiveSocket(
                url: ws + "/v1/alerts/stream?tenantKey=tk_live&after=\(envelope.id.uuidString.lowercased())",
                token: alice.accessToken)
            #expect(await alertsChannel.waitFor(1))
            #expect(
                try alertsChannel.messages.map(message) == [NotificationStreamMessage(type: .unread, unreadCount: 1)])
            await alertsChannel.stop()

            // Signing out ends the session, and with it the socket (1000: reconnect after
            // signing in again).
            let last = LiveSocket(url: ws + "/v1/notifications/stream", token: alice.accessToken)
            #expect(await last.waitFor(1))
            let out = try await harness.client.call(.POST, harness.url("/v1/auth/logout"), token: alice.accessToken)
            #expect(out.status == 204)
            #expect(await last.waitForEnd(timeout: .seconds(20)))
            #expect(last.closeCode == 1000)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    /// Each socket is one HTTP/2 stream on the gateway's connection to alerts; past the
    /// hundred streams a connection allows by default, sockets would wait for a stream and
    /// close with 1013 after the hop's timeout.
    @Test func moreSocketsThanAConnectionsDefaultStreamsAllReachAlerts() async throws {
        let harness = try await GatewayHarness.start(
            gateway: [
                "limits.liveStreamsPerUser": "150", "limits.connectionsPerAddress": "300",
                "alerts.stream.perUser": "150",
            ], alerts: true)
        do {
            let ws = harness.gatewayURL.replacingOccurrences(of: "http://", with: "ws://")
            let alice = try await harness.signUp("alice@example.com")
            // On a loaded machine alerts may not be reachable yet and the gateway answers 1013
            // (try again later): wait, as a client retrying would, until one stream opens.
            let reachable = await eventually(timeout: .seconds(90), every: .milliseconds(500)) {
                let probe = LiveSocket(url: ws + "/v1/notifications/stream", token: alice.accessToken)
                _ = await eventually(timeout: .seconds(10)) { !probe.messages.isEmpty || probe.ended }
                let opened = !probe.messages.isEmpty
                await probe.stop()
                return opened
            }
            #expect(reachable)
            var sockets = (0..<130).map { _ in
                LiveSocket(url: ws + "/v1/notifications/stream", token: alice.accessToken)
            }
            // Under load a few may still be told 1013 (try again later): each reopens, as a
            // client would. A stream limit would refuse every socket past the hundredth instead.
            for _ in 0..<3 {
                let round = sockets
                _ = await eventually(timeout: .seconds(30)) { round.allSatisfy { !$0.messages.isEmpty || $0.ended } }
                let again = round.indices.filter { round[$0].messages.isEmpty && round[$0].closeCode == 1013 }
                if again.isEmpty { break }
                for index in again {
                    await round[index].stop()
                    sockets[index] = LiveSocket(url: ws + "/v1/notifications/stream", token: alice.accessToken)
                }
            }
            let all = sockets
            let allOpened = await eventually(timeout: .seconds(30)) { all.allSatisfy { !$0.messages.isEmpty } }
            let opened = all.filter { !$0.messages.isEmpty }.count
            #expect(
                allOpened, "\(opened) opened; \(all.compactMap(\.closeCode)) \(all.compactMap(\.failure).prefix(3))")
            for socket in all { await socket.stop() }
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    @Test func eventsAreSplitAcrossBuffersAndHeartbeatsSkipped() {
        var events = ServerSentEvents()
        let body = Array(": heartbeat\n\nid: 1\ndata: {\"caption\":\"café 🛹\"}\n\ndata: a\ndata: b\n\n".utf8)
        // Cut everywhere, including inside the two multi-byte characters.
        for cut in 1..<body.count {
            var split = ServerSentEvents()
            let first = split.feed(ByteBuffer(bytes: body[..<cut])).map { String(buffer: $0) }
            let second = split.feed(ByteBuffer(bytes: body[cut...])).map { String(buffer: $0) }
            #expect(first + second == ["{\"caption\":\"café 🛹\"}", "a\nb"], "cut at \(cut)")
        }
        #expect(events.feed(ByteBuffer(string: "data: x\n")) == [])
        #expect(events.feed(ByteBuffer(string: "\n")) == [ByteBuffer(string: "x")])
        // Several events in one buffer, a value's own leading space kept (only the first goes).
        let many = events.feed(ByteBuffer(string: "data:  a\n\nevent: read\ndata: b\n\n: ping\n\ndata: c"))
        #expect(many.map { String(buffer: $0) } == [" a", "b"])
        #expect(events.feed(ByteBuffer(string: "\n\n")).map { String(buffer: $0) } == ["c"])
    }

    @Test func theResumePointCannotAddParametersToTheHop() {
        #expect(LiveStreamGate.parameter("after", in: "after=abc-1") == "abc-1")
        #expect(LiveStreamGate.parameter("after", in: "x=1&after=a%26limit%3D9") == "a%26limit%3D9")
        #expect(LiveStreamGate.parameter("after", in: "before=1") == nil)
        // A duress responder's position goes along; the tenant key and anything else stay.
        #expect(
            LiveStreamGate.hopQuery("tenantKey=tk_1&lon=-0.12&lat=51.5&after=n-1&limit=9")
                == "?after=n-1&lat=51.5&lon=-0.12")
        #expect(LiveStreamGate.hopQuery("tenantKey=tk_1") == "")
        #expect(LiveStreamGate.hopQuery(nil) == "")
        #expect(LiveStreamGate.hopQuery("lat=1%26after%3Dx") == "?lat=1%26after%3Dx")
        #expect(LiveStreamGate.split("/v1/notifications/stream?after=1") == ("/v1/notifications/stream", "after=1"))
    }
}
