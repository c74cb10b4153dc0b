import Contracts
import Foundation
import NIOCore
import ServiceHTTP
import ServiceLifecycle
import Synchronization

/// The open live streams of every user, and what reaches them.
///
/// ``NotificationTap`` publishes after each commit that made or read notifications; a stream
/// controller subscribes for one connection. A message is written out once, as the
/// server-sent event every stream of its user sends. Each subscriber has a bounded buffer: a client
/// too slow to take `bufferLimit` messages is disconnected rather than held in memory, and
/// catches up on reconnecting with the last id it saw. A session's streams end with the
/// session (`session.ended`, account deletion), and all of them when alerts shuts down (so
/// the server can drain).
final class LiveStreams: Service, Sendable {
    struct Subscriber: Sendable {
        let user: String
        let session: String
        let continuation: AsyncStream<Item>.Continuation
    }

    /// What a stream carries.
    enum Item: Sendable {
        case event(Event)
        /// A comment line that keeps proxies from closing a quiet stream.
        case heartbeat
    }

    /// A message as one server-sent event: the notification's id (what a reconnect names),
    /// the type, the JSON.
    struct Event: Sendable {
        /// Set for a notification: a stream sends each notification once.
        let notificationID: String?
        let text: ByteBuffer

        init(_ message: NotificationStreamMessage) throws {
            notificationID = message.notification?.id
            var text = ""
            if let id = notificationID { text += "id: \(id)\n" }
            text += "event: \(message.type.rawValue)\ndata: "
            text += String(buffer: try JSONStreamEncoder.encode(message))
            text += "\n\n"
            self.text = ByteBuffer(string: text)
        }
    }

    /// Why a stream was not opened.
    enum Refusal: Error, Equatable {
        /// The user holds `perUserLimit` already.
        case userLimit
        /// This process holds `processLimit` already.
        case processLimit
    }

    /// Most streams one user may hold open; the next is refused.
    let perUserLimit: Int
    /// Most streams this process holds, all users together (each is one HTTP/2 stream on
    /// the gateway's connection, which the internal listener must allow).
    let processLimit: Int
    let bufferLimit: Int
    private let subscribers = Mutex<[String: [UUID: Subscriber]]>([:])
    private let open = Atomic<Int>(0)

    init(perUserLimit: Int = 16, processLimit: Int = 20_000, bufferLimit: Int = 256) {
        self.perUserLimit = perUserLimit
        self.processLimit = processLimit
        self.bufferLimit = bufferLimit
    }

    /// One connection's stream; `close()` it when done (it is also ended by the session's end).
    struct Subscription: Sendable {
        let messages: AsyncStream<Item>
        let continuation: AsyncStream<Item>.Continuation

        /// Ends the stream once what it holds is taken.
        func close() { continuation.finish() }
    }

    /// A new stream for one connection of `user` in `session`, unless they (or this process)
    /// hold as many as they may.
    func subscribe(user: String, session: String) throws(Refusal) -> Subscription {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Item.self, bufferingPolicy: .bufferingOldest(bufferLimit))
        let id = UUID()
        let refusal = subscribers.withLock { all -> Refusal? in
            guard all[user, default: [:]].count < perUserLimit else { return .userLimit }
            guard open.load(ordering: .relaxed) < processLimit else { return .processLimit }
            all[user, default: [:]][id] = Subscriber(user: user, session: session, continuation: continuation)
            open.add(1, ordering: .relaxed)
            return nil
        }
        if let refusal { throw refusal }
        continuation.onTermination = { [weak self] _ in self?.remove(id, of: user) }
        return Subscription(messages: stream, continuation: continuation)
    }

    /// Whether anyone is listening at all (the tap reads nothing otherwise).
    var isEmpty: Bool { subscribers.withLock { $0.isEmpty } }

    /// The users among `users` with a stream open.
    func listening(_ users: Set<String>) -> Set<String> {
        subscribers.withLock { all in users.filter { all[$0] != nil } }
    }

    /// Sends `messages` to every stream of `user`; a stream whose buffer is full is ended.
    func publish(_ messages: [NotificationStreamMessage], to user: String) {
        let targets = subscribers.withLock { $0[user].map { Array($0.values) } ?? [] }
        guard !targets.isEmpty else { return }
        // (A message that cannot be encoded is left out: the centre has it.)
        let events = messages.compactMap { try? Event($0) }
        for subscriber in targets {
            for event in events {
                if case .dropped = subscriber.continuation.yield(.event(event)) {
                    subscriber.continuation.finish()
                    break
                }
            }
        }
    }

    /// Ends the streams of `sessions`.
    func end(sessions: Set<String>) {
        let ended = subscribers.withLock { all in all.values.flatMap(\.values).filter { sessions.contains($0.session) }
        }
        for subscriber in ended { subscriber.continuation.finish() }
    }

    /// Ends every stream of `user`.
    func end(user: String) {
        let ended = subscribers.withLock { $0[user].map { Array($0.values) } ?? [] }
        for subscriber in ended { subscriber.continuation.finish() }
    }

    func run() async throws {
        try? await gracefulShutdown()
        endAll()
    }

    func endAll() {
        let all = subscribers.withLock { $0.values.flatMap(\.values) }
        for subscriber in all { subscriber.continuation.finish() }
    }

    var count: Int { open.load(ordering: .relaxed) }

    private func remove(_ id: UUID, of user: String) {
        subscribers.withLock { all in
            guard all[user]?.removeValue(forKey: id) != nil else { return }
            open.subtract(1, ordering: .relaxed)
            if all[user]?.isEmpty == true { all[user] = nil }
        }
    }
}
