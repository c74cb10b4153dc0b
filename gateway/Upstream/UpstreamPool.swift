import Contracts
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1
import NIOPosix
import NIOSSL
import Prometheus
import ServiceHTTP
import ServiceLifecycle
import Synchronization

/// The gateway's connections to the services: per service up to `connectionsPerService`
/// HTTP/2 connections over mutual TLS, each multiplexing up to `streamsPerConnection`
/// requests. A request takes the least loaded usable connection, and a new connection is made
/// only when every existing one is full (or none is usable). A connection that closes or says
/// GOAWAY is replaced on the next request; one request's failure never ends a connection.
final class UpstreamPool: Sendable {
    struct Target: Sendable {
        let host: String
        let port: Int
        /// The name to verify the service's certificate against; nil for an IP address, which
        /// is then checked against the certificate's IP addresses.
        let serverName: String?
    }

    private let targets: [ServiceName: Target]
    private let tls: NIOSSLContext
    /// ALPN `http/1.1`, for ``openUploadExchange(to:)`` and the relay's ``KeptAliveLanes``.
    private let http1TLS: NIOSSLContext
    private let group: any EventLoopGroup
    private let connectTimeout: TimeAmount
    let connectionsPerService: Int
    let streamsPerConnection: Int
    /// ``StreamRelay``'s kept-alive HTTP/1.1 connections.
    let keptAlive: KeptAliveLanes
    private let pools: Mutex<Pools>

    struct Pools {
        var services: [ServiceName: Slots] = [:]
        /// ``StreamRelay``'s connections: one per service on each event loop.
        var relays: [RelayKey: RelaySlot] = [:]
        var closed = false
    }

    struct RelayKey: Hashable {
        let loop: ObjectIdentifier
        let service: ServiceName
    }

    enum RelaySlot {
        case connecting
        case ready(UpstreamConnection)
    }

    /// One service's connections, and the connection being made (so concurrent requests that
    /// find every connection full share one connect instead of each making their own).
    struct Slots {
        var connections: [UpstreamConnection] = []
        var connecting: Task<UpstreamConnection, any Error>?
    }

    init(
        settings: ServiceSettings, tls: TLSMaterial, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        connectionsPerService: Int = 4, streamsPerConnection: Int = 100,
        keptAliveIdleTimeout: TimeAmount = .seconds(60),
        registry: PrometheusCollectorRegistry? = nil
    ) throws {
        var targets: [ServiceName: Target] = [:]
        for (service, url) in settings.serviceURLs {
            guard let host = url.host, let port = url.port else { continue }
            let isAddress = host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" }
            targets[service] = Target(host: host, port: port, serverName: isAddress ? nil : host)
        }
        var configuration = tls.clientConfiguration()
        configuration.applicationProtocols = ["h2"]
        self.targets = targets
        self.tls = try NIOSSLContext(configuration: configuration)
        configuration.applicationProtocols = ["http/1.1"]
        self.http1TLS = try NIOSSLContext(configuration: configuration)
        self.group = group
        self.connectTimeout = settings.client.connectTimeout
        self.connectionsPerService = connectionsPerService
        self.streamsPerConnection = streamsPerConnection
        // 128 kept-alive connections a service across the loops, as nginx's two workers keep 64
        // each: 64 a loop on two loops, 128 on one.
        let loops = max(1, Array(group.makeIterator()).count)
        self.keptAlive = KeptAliveLanes(
            targets: targets, tls: http1TLS, connectTimeout: connectTimeout, perLoop: max(16, 128 / loops),
            idleTimeout: keptAliveIdleTimeout, registry: registry)
        self.pools = Mutex(Pools())
    }

    /// The `:authority` a request to `service` carries: the service's own host and port.
    func authority(of service: ServiceName) -> String? {
        targets[service].map { "\($0.host):\($0.port)" }
    }

    /// Opens a stream to `service` for one request.
    func openStream(to service: ServiceName) async throws -> UpstreamExchange {
        let connection = try await connection(to: service)
        return try await connection.openStream()
    }

    /// An exchange on an HTTP/1.1 connection of its own (mutual TLS), closed when the answer is
    /// in: for uploads whose service answers `104` first (the IETF draft's), which
    /// AsyncHTTPClient's upload hop would drop and whose bodies the HTTP/2 hop carries slowly
    /// (`docs/PERFORMANCE.md`). Informational heads come through, as on a stream.
    func openUploadExchange(to service: ServiceName) async throws -> UpstreamExchange {
        guard let target = targets[service] else { throw UpstreamError.unreachable }
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(connectTimeout)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connect(host: target.host, port: target.port).get()
        } catch {
            throw UpstreamError.unreachable
        }
        do {
            return try await channel.eventLoop.submit { [http1TLS] in
                try Self.addHTTP1ClientHandlers(
                    to: channel.pipeline.syncOperations, tls: http1TLS, serverName: target.serverName,
                    informational: .forward)
                let exchange = UpstreamExchange(channel: channel, ownsConnection: true)
                try channel.pipeline.syncOperations.addHandler(exchange)
                return exchange
            }.get()
        } catch {
            channel.close(promise: nil)
            throw error
        }
    }

    /// An HTTP/1.1 client over mutual TLS (`tls`, ALPN `http/1.1`) on a connection to a service,
    /// speaking HTTP types above: the upload hop's and the relay's kept-alive connections.
    static func addHTTP1ClientHandlers(
        to operations: ChannelPipeline.SynchronousOperations, tls: NIOSSLContext, serverName: String?,
        informational: NIOInformationalResponseStrategy
    ) throws {
        try operations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
        try operations.addHandler(HTTPRequestEncoder())
        try operations.addHandler(
            ByteToMessageHandler(HTTPResponseDecoder(informationalResponseStrategy: informational)))
        try operations.addHandler(HTTP1ToHTTPClientCodec())
    }

    /// The connection to `service` owned by `loop`, for a request relayed there
    /// (``StreamRelay``), if it is up and has a free stream. Without one it is made (once) and
    /// nil is returned: that request takes the pipeline's way, as do those that come while the
    /// connection is made or while it is full.
    func relayConnection(to service: ServiceName, on loop: any EventLoop) -> UpstreamConnection? {
        guard let target = targets[service] else { return nil }
        let key = RelayKey(loop: ObjectIdentifier(loop), service: service)
        let (found, connect) = pools.withLock { pools -> (UpstreamConnection?, Bool) in
            guard !pools.closed else { return (nil, false) }
            switch pools.relays[key] {
            case .ready(let connection):
                let load = connection.load
                if load.usable { return (load.open < streamsPerConnection ? connection : nil, false) }
            case .connecting:
                return (nil, false)
            case nil:
                break
            }
            pools.relays[key] = .connecting
            return (nil, true)
        }
        if connect { makeRelayConnection(key, target: target, loop: loop) }
        return found
    }

    private func makeRelayConnection(_ key: RelayKey, target: Target, loop: any EventLoop) {
        Task { [tls, connectTimeout] in
            let made = try? await UpstreamConnection.connect(
                host: target.host, port: target.port, serverName: target.serverName, tls: tls, group: loop,
                connectTimeout: connectTimeout)
            let keep = pools.withLock { pools in
                guard let made, !pools.closed else {
                    pools.relays[key] = nil
                    return false
                }
                pools.relays[key] = .ready(made)
                return true
            }
            if !keep { made?.close() }
        }
    }

    private enum Choice {
        case use(UpstreamConnection)
        case wait(Task<UpstreamConnection, any Error>)
    }

    private func connection(to service: ServiceName) async throws -> UpstreamConnection {
        guard let target = targets[service] else { throw UpstreamError.unreachable }
        let choice: Choice = try pools.withLock { pools in
            guard !pools.closed else { throw UpstreamError.unreachable }
            var slots = pools.services[service, default: Slots()]
            defer { pools.services[service] = slots }
            slots.connections.removeAll { !$0.load.usable }
            let best = slots.connections.min { $0.load.open < $1.load.open }
            if let best, best.load.open < streamsPerConnection || slots.connections.count >= connectionsPerService {
                // Full everywhere and at the connection limit: HTTP/2 queues the stream until
                // the service's concurrency limit lets it start.
                return .use(best)
            }
            // Every connection is full (or there is none): make one more, once.
            let task = slots.connecting ?? makeConnection(to: service, target: target)
            slots.connecting = task
            return best.map { .use($0) } ?? .wait(task)
        }
        switch choice {
        case .use(let connection): return connection
        case .wait(let task): return try await task.value
        }
    }

    /// Connects in a task of its own, which adds the connection to the pool when it is made
    /// (whoever asked for it may already have been served by another connection).
    private func makeConnection(to service: ServiceName, target: Target) -> Task<UpstreamConnection, any Error> {
        Task { [tls, group, connectTimeout] in
            let result: Result<UpstreamConnection, any Error>
            do {
                result = .success(
                    try await UpstreamConnection.connect(
                        host: target.host, port: target.port, serverName: target.serverName, tls: tls, group: group,
                        connectTimeout: connectTimeout))
            } catch {
                result = .failure(error)
            }
            let keep = pools.withLock { pools in
                pools.services[service]?.connecting = nil
                guard case .success(let made) = result, !pools.closed else { return false }
                pools.services[service, default: Slots()].connections.append(made)
                return true
            }
            if !keep, case .success(let made) = result { made.close() }
            do {
                return try result.get()
            } catch {
                throw UpstreamError.unreachable
            }
        }
    }

    /// Closes every connection; later requests fail as unreachable.
    func close() {
        keptAlive.close()
        let connections = pools.withLock { pools in
            pools.closed = true
            defer { (pools.services, pools.relays) = ([:], [:]) }
            let relayed = pools.relays.values.compactMap { slot -> UpstreamConnection? in
                guard case .ready(let connection) = slot else { return nil }
                return connection
            }
            return pools.services.values.flatMap(\.connections) + relayed
        }
        for connection in connections { connection.close() }
    }
}

extension UpstreamPool: Service {
    /// Closes the connections once the server has stopped (the application shuts its
    /// services down after the server, which lets requests in flight finish first).
    func run() async throws {
        try? await gracefulShutdown()
        close()
    }
}
