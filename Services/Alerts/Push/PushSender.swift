import AsyncHTTPClient
import Contracts
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL
import ServiceHTTP

/// One notification as every provider sends it.
struct PushMessage: Sendable, Equatable {
    var notificationId: String
    var type: NotificationType
    var title: String
    var body: String
    var link: String?
    var data: [String: String]
    /// The user's unread count (the app icon's badge).
    var badge: Int
    /// Never held back; delivered with the highest urgency the provider allows.
    var critical: Bool
    /// Groups the notifications of one conversation (a streak, a challenge) on the device.
    var threadId: String?
    /// Until when the provider should keep trying to reach an offline device.
    var expiresAt: Date
    /// Delivered without sound or interruption (quiet hours in `silent` mode).
    var silent = false

    /// The fields every provider carries beside title and body, for the app's tap handler.
    var appData: [String: String] {
        var fields = data
        fields["type"] = type.rawValue
        fields["notificationId"] = notificationId
        if let link { fields["link"] = link }
        return fields
    }
}

/// What a provider said about one device.
enum PushOutcome: Sendable, Equatable {
    /// Accepted; the provider's id for it, when it gives one.
    case delivered(String?)
    /// The token is dead (uninstalled, expired, another app's): the device goes.
    case unregistered(String)
    /// Try again later (rate limited, the provider down, our credential refreshed).
    case retry(after: TimeInterval?, String)
    /// This message cannot be sent to this device (too large, refused); not retried.
    case failed(String)
}

/// A push provider: sends one message to some of its devices, answering per device id.
protocol PushSender: Sendable {
    var provider: PushProvider { get }
    func send(_ message: PushMessage, to devices: [DeviceRecord]) async -> [String: PushOutcome]
}

/// A credential reused until shortly before it expires (APNs provider tokens, FCM access
/// tokens), made by one caller at a time however many ask at once.
actor CachedCredential {
    typealias Make = @Sendable (_ now: Date) async throws -> (value: String, expiresAt: Date)

    private let make: Make
    private let clock: any WallClock
    private var current: (value: String, expiresAt: Date)?
    private var pending: Task<(value: String, expiresAt: Date), any Error>?
    private(set) var made = 0

    init(clock: any WallClock, make: @escaping Make) {
        self.clock = clock
        self.make = make
    }

    func value() async throws -> String {
        let now = clock.now()
        if let current, current.expiresAt > now { return current.value }
        if let pending { return try await pending.value.value }
        let task = Task { [make] in try await make(now) }
        pending = task
        defer { pending = nil }
        let fresh = try await task.value
        current = fresh
        made += 1
        return fresh.value
    }

    /// Forgets the credential (the provider called it expired or invalid).
    func invalidate(_ value: String) {
        if current?.value == value { current = nil }
    }
}

/// HTTP for the providers: HTTP/2 where the provider offers it (APNs requires it), so
/// concurrent pushes to one provider are streams of one connection.
enum PushHTTP {
    /// The process's client for the real providers (the system's trust roots), made on first
    /// use and never shut down, like AsyncHTTPClient's own shared client (which cannot take
    /// the connection initializer ``FlushCoalescer`` needs).
    static let shared = makeClient(trustRoots: nil)

    /// A providers' client: the system's trust roots and `trustRoots` (a local fake's
    /// authority) if given, flushes coalesced per connection (``FlushCoalescer``). The caller
    /// shuts it down.
    static func makeClient(trustRoots: URL?) -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let trustRoots { tls.additionalTrustRoots = [.file(trustRoots.path)] }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        configuration.http2ConnectionDebugInitializer = FlushCoalescer<HTTP2Frame>.installAboveHTTP2
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// A provider's answer: its status, headers (lowercased names) and at most 64 KiB of body.
    typealias Answer = (status: Int, headers: [String: String], body: Data)

    /// Sends `body` as JSON and reads at most 64 KiB back; a transport failure throws, and its
    /// reason goes into the retry's (an operator reading "cannot be reached" needs to know why).
    static func postJSON(
        _ body: Data, to url: String, headers: [(String, String)], http: HTTPClient
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await http.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 64 << 10)
        var fields: [String: String] = [:]
        for header in response.headers { fields[header.name.lowercased()] = header.value }
        return (Int(response.status.code), fields, Data(bytes.readableBytesView))
    }

    /// `Retry-After` in seconds, if the provider sent one.
    static func retryAfter(_ headers: [String: String]) -> TimeInterval? {
        headers["retry-after"].flatMap(TimeInterval.init)
    }
}
