import AsyncHTTPClient
import Contracts
import Foundation
import NIOCore
import NIOSSL
import ServiceHTTP
import Synchronization
import TestSupport

// Notification benchmarks against the real executables of a release build (PINHOLE_BIN_DIR),
// with the local fake of the push providers in this process. Run through
// ./scripts/bench-notifications, which builds them:
//
//   notify-bench fanout [notifications] [users] [sink|providers]
//     Every user registers an APNs device through the gateway and sets quiet hours (hold) that
//     end a few minutes ahead; streak's `friend_request.sent` events (as its outbox posts them)
//     make `notifications` notifications, round robin over the users, all held. When the quiet
//     hours end, every push is due at once: prints how fast alerts pushed them to the fake
//     APNs and over how many connections, how fast the events were taken, the CPU per push of
//     alerts and of this process (the fake) over the drain, and alerts' memory. The fake APNs
//     is `FakeAPNsSink` (answers on the event loop), or with `providers` the tests'
//     Hummingbird `FakePushProviders`, which costs this process 2.5–3 times the CPU per push.
//
//   notify-bench live [connections] [users] [seconds] [per-second]
//     Opens `connections` WebSockets to `/v1/notifications/stream` through the gateway (TLS),
//     spread over `users`, then makes `per-second` notifications a second for `seconds` and
//     times each on every socket of its user, from its commit (the message's `committedAt`)
//     and from the moment its event was sent to alerts. Prints the gateway's and alerts' memory
//     per connection and the latencies. `live 10000 10000` is one socket per user (a frame per
//     notification); the default 1,000 users hold ten sockets each (ten frames).

let arguments = Array(CommandLine.arguments.dropFirst())
func argument(_ index: Int, _ fallback: Int) -> Int {
    index < arguments.count ? Int(arguments[index]) ?? fallback : fallback
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func mib(_ value: Double) -> String { String(format: "%.1f MiB", value) }

/// The user id (`sub`) inside an access token.
func subject(of token: String) -> String {
    var payload = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+")
        .replacingOccurrences(of: "_", with: "/")
    while payload.count % 4 != 0 { payload += "=" }
    let claims = (try? JSONSerialization.jsonObject(with: Data(base64Encoded: payload) ?? Data())) as? [String: Any]
    return claims?["sub"] as? String ?? ""
}

struct BenchUser: Sendable {
    let id: String
    let token: String
}

/// Runs `body` for 0..<count with at most `width` at once.
func concurrently(_ count: Int, width: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        var next = 0
        while next < min(width, count) {
            let index = next
            group.addTask { try await body(index) }
            next += 1
        }
        while try await group.next() != nil, next < count {
            let index = next
            group.addTask { try await body(index) }
            next += 1
        }
        try await group.waitForAll()
    }
}

/// Signs up `count` users through the gateway (register, then sign in).
func signUp(_ count: Int, on stack: Stack) async throws -> [BenchUser] {
    let users = Mutex<[Int: BenchUser]>([:])
    try await concurrently(count, width: 8) { index in
        let email = "bench\(index)@example.com"
        let password = "benchmark password \(index)"
        _ = try await stack.client.call(
            .POST, stack.url("/v1/auth/register"), json: RegisterRequest(email: email, password: password))
        let login = try await stack.client.call(
            .POST, stack.url("/v1/auth/login"), json: LoginRequest(email: email, password: password))
        guard login.status == 200 else { throw StackError("sign-in \(index): \(login.status) \(login.text)") }
        let token = try login.decode(TokenResponse.self).accessToken
        users.withLock { $0[index] = BenchUser(id: subject(of: token), token: token) }
    }
    return users.withLock { all in (0..<count).map { all[$0]! } }
}

/// Posts one `friend_request.sent` to alerts as streak's outbox does (a version 7 event id, as
/// every outbox makes; the event id becomes the notification's id, so its indexes grow at
/// their end as they do in a running stack).
func friendRequest(
    to user: String, from streak: HTTPClient, alerts: String, id: UUID = SystemEntropy().uuid(at: Date())
) async throws {
    let envelope = EventEnvelope(
        id: id, type: FriendRequestSent.eventType, source: .streak, occurredAt: Date(),
        payload: FriendRequestSent(
            requestId: UUID().uuidString.lowercased(), fromUserId: UUID().uuidString.lowercased(),
            fromDisplayName: "Bench", toUserId: user))
    let answer = try await streak.call(.POST, alerts + "/internal/events", json: envelope)
    guard answer.status == 200 else { throw StackError("event refused: \(answer.status) \(answer.text)") }
}

func startStack(_ settings: [String: String]) async throws -> Stack {
    var environment = Dictionary(uniqueKeysWithValues: settings.map { (ConfigKeys.environmentName($0.key), $0.value) })
    environment["LOG_LEVEL"] = "warning"
    environment["RATELIMIT_ENABLED"] = "false"
    return try await Stack.start(publicTLS: true, environment: environment)
}

// MARK: - Fan-out

/// The fake APNs a fan-out pushes to.
protocol FakeAPNs: Sendable {
    var url: String { get }
    var caFile: URL { get }
    var apnsKeyFile: URL { get }
    var keyID: String { get }
    var teamID: String { get }
    /// Pushes accepted so far, and over how many connections they came.
    func pushed() -> (pushes: Int, connections: Int)
    func stop() async
}

extension FakeAPNsSink: FakeAPNs {
    func pushed() -> (pushes: Int, connections: Int) { accepted() }
}

extension FakePushProviders: FakeAPNs {
    func pushed() -> (pushes: Int, connections: Int) { accepted("apns") }
}

func fanout(notifications: Int, userCount: Int, fakeKind: String) async throws {
    let fakeDirectory = try TestDataDirectory.make()
    defer { fakeDirectory.remove() }
    let fake: any FakeAPNs
    switch fakeKind {
    case "sink": fake = try await FakeAPNsSink.start(directory: fakeDirectory)
    case "providers":
        let providers = try await FakePushProviders.start(directory: fakeDirectory)
        providers.countPushesOnly()
        fake = providers
    default: throw StackError("the fake APNs is `sink` or `providers`, not \(fakeKind)")
    }
    let stack = try await startStack([
        "alerts.apns.keyFile": fake.apnsKeyFile.path, "alerts.apns.keyId": fake.keyID,
        "alerts.apns.teamId": fake.teamID, "alerts.apns.productionUrl": fake.url,
        "alerts.apns.sandboxUrl": fake.url, "alerts.push.trustRootsFile": fake.caFile.path,
    ])
    let streak = try TestHTTP.client(dataDirectory: stack.directory.url, identity: .streak)
    do {
        let users = try await signUp(userCount, on: stack)
        try await concurrently(users.count, width: 16) { index in
            let token = String(format: "%064x", index + 1)
            let registered = try await stack.client.call(
                .POST, stack.url("/v1/devices"), token: users[index].token,
                json: DeviceRegistration(
                    provider: .apns, token: token, bundleId: "com.example.bench", environment: .production))
            guard registered.status == 201 else { throw StackError("device: \(registered.status) \(registered.text)") }
        }
        // Quiet hours from the last minute to a few minutes ahead (the events are taken at
        // about 800 a second: each is its own durable commit), so that every push is due at
        // the moment they end.
        let minutes = notifications / 800 / 60 + 2
        let now = Date()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        func clock(_ date: Date) -> String {
            let parts = calendar.dateComponents([.hour, .minute], from: date)
            return String(format: "%02d:%02d", parts.hour!, parts.minute!)
        }
        let quietStart = now.addingTimeInterval(-60)
        let quietEnd = now.addingTimeInterval(Double(minutes) * 60)
        let ends = calendar.date(from: calendar.dateComponents([.year, .month, .day, .hour, .minute], from: quietEnd))!
        let quiet = [
            "quietHours": ["start": clock(quietStart), "end": clock(quietEnd), "timeZone": "UTC", "mode": "hold"]
        ]
        try await concurrently(users.count, width: 16) { index in
            let set = try await stack.client.call(
                .PUT, stack.url("/v1/me/notification-preferences"), token: users[index].token, json: quiet)
            guard set.status == 200 else { throw StackError("quiet hours: \(set.status) \(set.text)") }
        }
        let alerts = stack.pid(of: .alerts)
        let before = memory(of: alerts)
        print(
            "fan-out: \(notifications) notifications to \(users.count) users, one APNs device each (fake: \(fakeKind))")
        print("alerts before: \(mib(before.rss))")

        let start = ContinuousClock.now
        try await concurrently(notifications, width: 32) { index in
            try await friendRequest(to: users[index % users.count].id, from: streak, alerts: stack.serviceURL(.alerts))
        }
        let taken = ContinuousClock.now - start
        let held = memory(of: alerts)
        print(
            String(
                format: "events taken: %d in %.1f s (%.0f/s), pushed meanwhile: %d; alerts %@", notifications,
                seconds(taken), Double(notifications) / seconds(taken), fake.pushed().pushes, mib(held.rss)))
        print("quiet hours end at \(clock(ends)) UTC (in \(Int(ends.timeIntervalSinceNow)) s)")

        // Every push is due at `ends`.
        let wait = ends.timeIntervalSinceNow
        if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
        let due = ContinuousClock.now
        let bench = getpid()
        let cpuBefore = (alerts: cpuSeconds(of: alerts), bench: cpuSeconds(of: bench))
        var peakRSS = held.rss
        var first: Duration?
        var last = (count: 0, at: ContinuousClock.now)
        while fake.pushed().pushes < notifications {
            try await Task.sleep(for: .milliseconds(20))
            peakRSS = max(peakRSS, memory(of: alerts).rss)
            let count = fake.pushed().pushes
            if count > 0, first == nil { first = ContinuousClock.now - due }
            if count != last.count {
                last = (count, ContinuousClock.now)
            } else if ContinuousClock.now - last.at > .seconds(60) {
                throw StackError("pushes stopped at \(count) of \(notifications)")
            }
        }
        let drained = ContinuousClock.now - due
        let cpu = (alerts: cpuSeconds(of: alerts) - cpuBefore.alerts, bench: cpuSeconds(of: bench) - cpuBefore.bench)
        let after = memory(of: alerts)
        let (pushed, connections) = fake.pushed()
        print(
            String(
                format:
                    "pushed: %d in %.2f s from the end of quiet hours (first after %.2f s): %.0f/s over %d connection(s)",
                pushed, seconds(drained), seconds(first ?? .zero), Double(pushed) / seconds(drained), connections))
        // What a push cost each side, so that runs on a faster or slower hour of this shared
        // machine compare: the drain is CPU-bound, and the fake runs on the same two cores.
        print(
            String(
                format: "CPU per push during the drain: alerts %.0f µs, the fake APNs (this process) %.0f µs",
                cpu.alerts / Double(pushed) * 1e6, cpu.bench / Double(pushed) * 1e6))
        print("alerts after: \(mib(after.rss)), peak seen \(mib(max(peakRSS, after.rss))) (VmHWM \(mib(after.peak)))")
    } catch {
        print(stack.logs(of: .alerts).suffix(20).joined(separator: "\n"))
        try? await streak.shutdown()
        await stack.stop()
        await fake.stop()
        throw error
    }
    try await streak.shutdown()
    await stack.stop()
    await fake.stop()
}

// MARK: - Live stream

/// What every socket of the benchmark saw.
final class Arrivals: Sendable {
    /// When a message was read, on both clocks: the benchmark's own (against when it sent the
    /// event) and the wall clock (against the message's `committedAt`, stamped by alerts on
    /// this machine's clock).
    struct Instant {
        let clock = ContinuousClock.now
        let wall = Date().timeIntervalSince1970
    }

    struct State {
        var sent: [String: ContinuousClock.Instant] = [:]
        /// Event sent → message read, and commit → message read, in milliseconds.
        var latencies: [Double] = []
        var fromCommit: [Double] = []
        var opened = 0
        var ended = 0
        var closeCodes: [Int: Int] = [:]
        var failures: [String: Int] = [:]
        /// The open sockets, closed at the end.
        var channels: [any Channel] = []
    }
    let state = Mutex(State())

    private static let (notificationKey, idKey) = (Array(#""notification":{"#.utf8), Array(#""id":""#.utf8))
    private static let committedKey = Array(#""committedAt":""#.utf8)

    /// Times a message that brings a notification. The benchmark reads only the notification's
    /// id (the first `"id"` in its object; the encoder sorts keys, and `data` holds none) and
    /// the message's `committedAt` (its first key): decoding ten thousand clients' messages in
    /// full would cost this process CPU on the cores the stack it measures runs on; a phone
    /// decodes its own messages.
    func arrived(_ message: ByteBuffer, at instant: Instant) {
        let (id, committed) = message.withUnsafeReadableBytes { bytes -> (String?, Double?) in
            guard let object = Self.find(Self.notificationKey, in: bytes, from: 0),
                let key = Self.find(Self.idKey, in: bytes, from: object + Self.notificationKey.count),
                let end = Self.find([UInt8(ascii: "\"")], in: bytes, from: key + Self.idKey.count)
            else { return (nil, nil) }
            let id = String(decoding: bytes[(key + Self.idKey.count)..<end], as: UTF8.self)
            let stamp = Self.find(Self.committedKey, in: bytes, from: 0).flatMap {
                Self.millisecondOfDay(in: bytes, at: $0 + Self.committedKey.count)
            }
            return (id, stamp)
        }
        guard let id else { return }
        // Milliseconds from commit, both times of day (a run that crosses midnight wraps once).
        let fromCommit = committed.map { committed in
            let late = (instant.wall * 1000).truncatingRemainder(dividingBy: 86_400_000) - committed
            return late < -43_200_000 ? late + 86_400_000 : late
        }
        state.withLock { state in
            if let sent = state.sent[id] { state.latencies.append(seconds(instant.clock - sent) * 1000) }
            if let fromCommit { state.fromCommit.append(fromCommit) }
        }
    }

    /// The time of day, in milliseconds, of the timestamp `2026-11-29T03:40:00.123Z` that starts
    /// at `start` (UTC, as every Pinhole timestamp).
    static func millisecondOfDay(in bytes: UnsafeRawBufferPointer, at start: Int) -> Double? {
        guard start + 24 <= bytes.count, bytes[start + 10] == UInt8(ascii: "T") else { return nil }
        func number(_ offset: Int, _ digits: Int) -> Double {
            (0..<digits).reduce(0) { $0 * 10 + Double(Int(bytes[start + offset + $1]) - 48) }
        }
        return ((number(11, 2) * 60 + number(14, 2)) * 60 + number(17, 2)) * 1000 + number(20, 3)
    }

    /// Where `needle` first is in `bytes` at or after `start` (a plain loop: the generic
    /// `firstRange(of:)` was a fifth of this process's CPU).
    static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let first = needle.first, needle.count <= bytes.count else { return nil }
        var index = start
        while index <= bytes.count - needle.count {
            if bytes[index] == first, needle.indices.allSatisfy({ bytes[index + $0] == needle[$0] }) { return index }
            index += 1
        }
        return nil
    }

    /// A socket that could not be opened.
    func failed(_ reason: String) {
        state.withLock {
            $0.ended += 1
            $0.failures[String(reason.prefix(80)), default: 0] += 1
        }
    }
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func live(connections: Int, userCount: Int, duration: Int, rate: Int) async throws {
    let perUser = (connections + userCount - 1) / userCount
    let stack = try await startStack([
        "limits.liveStreamsPerUser": String(perUser), "limits.connectionsPerAddress": String(connections + 100),
        "alerts.stream.perUser": String(perUser),
    ])
    let streak = try TestHTTP.client(dataDirectory: stack.directory.url, identity: .streak)
    let arrivals = Arrivals()
    do {
        let users = try await signUp(userCount, on: stack)
        let (gateway, alerts) = (stack.pid(of: .gateway), stack.pid(of: .alerts))
        let before = (gateway: memory(of: gateway), alerts: memory(of: alerts))
        print("live: \(connections) WebSockets through the gateway (TLS), \(users.count) users, \(perUser) each")
        print("before: gateway \(mib(before.gateway.rss)), alerts \(mib(before.alerts.rss))")

        let tls = try NIOSSLContext(configuration: TestHTTP.tlsConfiguration(dataDirectory: stack.directory.url))
        guard let gatewayURL = URL(string: stack.gatewayURL), let host = gatewayURL.host, let port = gatewayURL.port
        else { throw StackError("gateway URL \(stack.gatewayURL)") }
        let opening = ContinuousClock.now
        var socketUsers: [Int] = []
        for index in 0..<connections {
            let user = index % users.count
            socketUsers.append(user)
            let token = users[user].token
            Task {
                guard
                    let channel = await LiveClients.open(
                        host: host, port: port, path: "/v1/notifications/stream", token: token, tls: tls,
                        arrivals: arrivals)
                else { return }
                arrivals.state.withLock { $0.channels.append(channel) }
            }
            if index % 200 == 199 {
                // Let each batch of handshakes finish before the next (a crowd of clients on the
                // same two cores would otherwise time each other out).
                let target = index + 1
                let deadline = ContinuousClock.now + .seconds(60)
                while arrivals.state.withLock({ $0.opened + $0.ended }) < target, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while arrivals.state.withLock({ $0.opened + $0.ended }) < connections, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let opened = arrivals.state.withLock { $0.opened }
        print(String(format: "open: %d of %d in %.1f s", opened, connections, seconds(ContinuousClock.now - opening)))
        try await Task.sleep(for: .seconds(2))
        let held = (gateway: memory(of: gateway), alerts: memory(of: alerts))
        print(
            String(
                format: "held: gateway %@ (+%.1f KiB per connection), alerts %@ (+%.1f KiB per connection)",
                mib(held.gateway.rss), (held.gateway.rss - before.gateway.rss) * 1024 / Double(max(opened, 1)),
                mib(held.alerts.rss), (held.alerts.rss - before.alerts.rss) * 1024 / Double(max(opened, 1))))

        // Sockets per user, to know how many arrivals each notification should make.
        var socketsOf = [Int](repeating: 0, count: users.count)
        for user in socketUsers { socketsOf[user] += 1 }
        let total = duration * rate
        let interval = Duration.seconds(1) / rate
        let bench = getpid()
        let cpuBefore = (gateway: cpuSeconds(of: gateway), alerts: cpuSeconds(of: alerts), bench: cpuSeconds(of: bench))
        let start = ContinuousClock.now
        var expected = 0
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<total {
                let due = start + interval * index
                if due > ContinuousClock.now { try await Task.sleep(until: due) }
                let user = Int.random(in: 0..<users.count)
                expected += socketsOf[user]
                let id = SystemEntropy().uuid(at: Date())
                arrivals.state.withLock { $0.sent[id.uuidString.lowercased()] = ContinuousClock.now }
                group.addTask {
                    try await friendRequest(
                        to: users[user].id, from: streak, alerts: stack.serviceURL(.alerts), id: id)
                }
            }
            try await group.waitForAll()
        }
        let sending = ContinuousClock.now - start
        try await Task.sleep(for: .seconds(3))
        // From the first event to 3 s after the last was taken: every arrival is in it, unless
        // the run fell behind (then the arrivals line says so).
        let cpu = (
            gateway: cpuSeconds(of: gateway) - cpuBefore.gateway, alerts: cpuSeconds(of: alerts) - cpuBefore.alerts,
            bench: cpuSeconds(of: bench) - cpuBefore.bench
        )
        let loaded = (gateway: memory(of: gateway), alerts: memory(of: alerts))
        let state = arrivals.state.withLock { $0 }
        let sorted = state.latencies.sorted()
        print(
            String(
                format: "made: %d notifications in %.1f s (%.0f/s); arrivals %d of %d expected", total,
                seconds(sending), Double(total) / seconds(sending), sorted.count, expected))
        print(
            String(
                format: "event sent → socket: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms",
                percentile(sorted, 0.5), percentile(sorted, 0.9), percentile(sorted, 0.99), sorted.last ?? .nan))
        let committed = state.fromCommit.sorted()
        print(
            String(
                format: "commit → socket (%d stamped): p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms",
                committed.count, percentile(committed, 0.5), percentile(committed, 0.9),
                percentile(committed, 0.99), committed.last ?? .nan))
        print(
            "under load: gateway \(mib(loaded.gateway.rss)) (peak \(mib(loaded.gateway.peak))), alerts "
                + "\(mib(loaded.alerts.rss)) (peak \(mib(loaded.alerts.peak)))")
        print("ended early: \(state.ended) (close codes \(state.closeCodes), failures \(state.failures))")
        print(
            String(
                format: "CPU per notification (%d frames each): gateway %.0f µs, alerts %.0f µs, "
                    + "this benchmark %.0f µs", perUser, cpu.gateway / Double(total) * 1e6,
                cpu.alerts / Double(total) * 1e6, cpu.bench / Double(total) * 1e6))
    } catch {
        print(stack.logs(of: .gateway).suffix(10).joined(separator: "\n"))
        print(stack.logs(of: .alerts).suffix(10).joined(separator: "\n"))
        for socket in arrivals.state.withLock({ $0.channels }) { socket.close(promise: nil) }
        try? await streak.shutdown()
        await stack.stop()
        throw error
    }
    for socket in arrivals.state.withLock({ $0.channels }) { try? await socket.close() }
    try await streak.shutdown()
    await stack.stop()
}

switch arguments.first {
case "fanout":
    try await fanout(
        notifications: argument(1, 100_000), userCount: argument(2, 1_000),
        fakeKind: arguments.count > 3 ? arguments[3] : "sink")
case "live":
    try await live(
        connections: argument(1, 10_000), userCount: argument(2, 1_000), duration: argument(3, 30),
        rate: argument(4, 1_000))
case "nearby":
    try await nearby(userCount: argument(1, 10_000), alertCount: argument(2, 100), duration: argument(3, 60))
default:
    print(
        "usage: notify-bench fanout [notifications] [users] | live [connections] [users] [seconds] [per-second]"
            + " | nearby [users] [alerts] [seconds]")
}
