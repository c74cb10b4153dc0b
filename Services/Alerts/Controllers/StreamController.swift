import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceKit

/// `GET /v1/notifications/stream`: the user's notifications live, as server-sent events
/// (`text/event-stream`). The gateway carries it to WebSocket clients as one text frame per
/// event; HTTP clients (an `EventSource`) can read it as is.
///
/// It replays what came after `?after=` (or `Last-Event-ID`), then sends the unread count,
/// then each change as it commits (``NotificationTap``). A comment line every
/// `heartbeat` keeps proxies from closing a quiet stream. It ends when the access token
/// expires (the client reconnects with a fresh one and its last id), when the session ends,
/// or when the client is too slow to keep up.
struct StreamController: Sendable {
    let store: AlertsStore
    let streams: LiveStreams
    let clock: any WallClock
    var heartbeat: Duration = .seconds(25)
    /// How long a Transrify responder's position (`lat`, `lon`) counts.
    var positionMaxAge: TimeInterval = 1_800

    static let lastEventID = HTTPField.Name("Last-Event-ID")!

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/notifications/stream", use: open)
    }

    @Sendable func open(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let after =
            request.uri.queryParameters[Substring(NotificationStreamQuery.after)].map(String.init)
            ?? request.headers[Self.lastEventID]
        if let after, (try? ObjectID.path(after, "Notification")) == nil {
            throw ServiceError.validation("`after` is the id of a notification.")
        }
        // A tenant's customer may say where they are: their last known position, as a poll of
        // `/v1/alerts/nearby` records it.
        if let place = try request.queryPoint() {
            if let tenant = user.tenantID {
                try await store.record(
                    ResponderPositionRecord(
                        userId: user.userID, tenantId: tenant, latitude: place.latitude, longitude: place.longitude,
                        at: clock.now()), maxAge: positionMaxAge)
            }
        }
        let live: LiveStreams.Subscription
        do {
            live = try streams.subscribe(user: user.userID, session: user.sessionID)
        } catch .userLimit {
            throw ServiceError(
                .rateLimitExceeded, "At most \(streams.perUserLimit) notification streams may be open at once.")
        } catch .processLimit {
            throw ServiceError(
                .serviceUnavailable, "This server holds as many live streams as it may; try again shortly.",
                headers: [.retryAfter: "5"])
        }
        // Subscribed before reading what was missed, so nothing committed in between is lost;
        // what both carry is sent once.
        let missed: AlertsStore.Missed
        do {
            missed = try await store.missed(after: after, of: user.userID, limit: NotificationStreamQuery.replayLimit)
        } catch {
            live.close()
            throw error
        }
        let lifetime = max(0, user.expiresAt.timeIntervalSince(clock.now()))
        let heartbeat = self.heartbeat
        let closed = context.channel.closeFuture
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                defer { live.close() }
                var sent = Set<String>()
                if missed.more {
                    try await writer.write(
                        Self.event(NotificationStreamMessage(type: .resync, unreadCount: missed.unread)))
                } else {
                    for record in missed.records {
                        sent.insert(record.id)
                        let message = NotificationStreamMessage(
                            type: .notification, notification: record.contract, message: missed.messages[record.id],
                            unreadCount: missed.unread)
                        try await writer.write(Self.event(message))
                    }
                }
                try await writer.write(Self.event(NotificationStreamMessage(type: .unread, unreadCount: missed.unread)))
                try await Self.relay(
                    live.messages, to: &writer, skipping: sent, heartbeat: heartbeat, lifetime: lifetime,
                    closed: closed)
                try await writer.finish(nil)
            })
    }

    /// Writes each message of `live` (and a heartbeat when quiet) until it ends, `lifetime`
    /// seconds pass, or the client goes (`closed`: its connection, or HTTP/2 stream, closed).
    static func relay(
        _ live: AsyncStream<NotificationStreamMessage>, to writer: inout any ResponseBodyWriter,
        skipping sent: Set<String>, heartbeat: Duration, lifetime: TimeInterval, closed: EventLoopFuture<Void>
    ) async throws {
        enum Step: Sendable {
            case message(NotificationStreamMessage)
            case beat
            case end
        }
        let (steps, input) = AsyncStream.makeStream(of: Step.self)
        closed.whenComplete { _ in input.yield(.end) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in live { input.yield(.message(message)) }
                input.yield(.end)
            }
            group.addTask {
                let deadline = ContinuousClock.now + .seconds(lifetime)
                while ContinuousClock.now + heartbeat < deadline {
                    try await Task.sleep(for: heartbeat)
                    input.yield(.beat)
                }
                try await Task.sleep(until: deadline)
                input.yield(.end)
            }
            var sent = sent
            for await step in steps {
                switch step {
                case .message(let message):
                    if let id = message.notification?.id, !sent.insert(id).inserted { continue }
                    try await writer.write(event(message))
                case .beat: try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                case .end:
                    group.cancelAll()
                    return
                }
            }
        }
    }

    /// One server-sent event: the notification's id (what a reconnect names), the type, the JSON.
    static func event(_ message: NotificationStreamMessage) throws -> ByteBuffer {
        var text = ""
        if let id = message.notification?.id { text += "id: \(id)\n" }
        text += "event: \(message.type.rawValue)\ndata: "
        text += String(decoding: try JSONCoding.encoder().encode(message), as: UTF8.self)
        text += "\n\n"
        return ByteBuffer(string: text)
    }
}
