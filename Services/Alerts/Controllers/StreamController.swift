import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceHTTP
import ServiceStore

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
    /// Who a duress alert reaches, and how long a position (`lat`, `lon`) counts.
    var reach: AlertsStore.DuressReach
    /// The jobs that push the duress alerts a place given here tells of.
    var jobs: JobQueue

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
        let place = try request.queryPoint()
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        // A HEAD is the GET's answer without its body, and safe: it subscribes to nothing and
        // records no place.
        if request.method == .head { return Response(status: .ok, headers: headers) }
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
            // A tenant's customer may say where they are: their last known position, as a poll
            // of `/v1/alerts/nearby` records it; an open alert near it is told on this stream.
            if let place, let tenant = user.tenantID {
                try await store.record(
                    ResponderPositionRecord(
                        userId: user.userID, tenantId: tenant, latitude: place.latitude, longitude: place.longitude,
                        at: clock.now()), limited: user.limited, reach: reach, jobs: jobs)
            }
            missed = try await store.missed(after: after, of: user.userID, limit: NotificationStreamQuery.replayLimit)
        } catch {
            live.close()
            throw error
        }
        let lifetime = max(0, user.expiresAt.timeIntervalSince(clock.now()))
        let heartbeat = self.heartbeat
        let channel = context.channel
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                defer { live.close() }
                var sent = Set<String>()
                if missed.more {
                    try await writer.write(
                        LiveStreams.Event(NotificationStreamMessage(type: .resync, unreadCount: missed.unread)).text)
                } else {
                    for record in missed.records {
                        sent.insert(record.id)
                        let message = NotificationStreamMessage(
                            type: .notification, notification: record, message: missed.messages[record.id],
                            unreadCount: missed.unread)
                        try await writer.write(LiveStreams.Event(message).text)
                    }
                }
                try await writer.write(
                    LiveStreams.Event(NotificationStreamMessage(type: .unread, unreadCount: missed.unread)).text)
                try await Self.relay(
                    live, to: &writer, skipping: sent, heartbeat: heartbeat, lifetime: lifetime, channel: channel)
                try await writer.finish(nil)
            })
    }

    static let keepAlive = ByteBuffer(string: ": keep-alive\n\n")

    /// Writes what `live` carries until it ends: when `lifetime` seconds pass, the client goes
    /// (`channel`, its connection or HTTP/2 stream, closes), or the stream is ended elsewhere
    /// (the session's end, a full buffer, shutdown). The heartbeat and both ends are timers and
    /// a callback on the channel's event loop that feed the same stream, so a connection costs
    /// one task, and a message one wake-up of it.
    static func relay(
        _ live: LiveStreams.Subscription, to writer: inout any ResponseBodyWriter, skipping sent: Set<String>,
        heartbeat: Duration, lifetime: TimeInterval, channel: any Channel
    ) async throws {
        let loop = channel.eventLoop
        let beats = loop.scheduleRepeatedTask(initialDelay: TimeAmount(heartbeat), delay: TimeAmount(heartbeat)) { _ in
            live.continuation.yield(.heartbeat)
        }
        let expiry = loop.scheduleTask(in: .nanoseconds(Int64(lifetime * 1e9))) { live.close() }
        channel.closeFuture.whenComplete { _ in live.close() }
        defer {
            beats.cancel()
            expiry.cancel()
        }
        // What the replay sent may come again, once, if it committed between the subscription
        // and the replay's read: skipped then forgotten (a long-lived stream keeps no id it sent).
        var replayed = sent
        for await item in live.messages {
            switch item {
            case .event(let event):
                if !replayed.isEmpty, let id = event.notificationID, replayed.remove(id) != nil { continue }
                try await writer.write(event.text)
            case .heartbeat:
                try await writer.write(keepAlive)
            }
        }
    }
}
