import Contracts
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Prometheus
import ServiceHTTP
import Synchronization

/// ``StreamRelay``'s kept-alive HTTP/1.1 connections to the services, per service on each event
/// loop, as nginx keeps its upstream connections: a request relayed on one is a request on a
/// connection already open (no stream to make on either side), where an HTTP/2 stream costs the
/// gateway a stream channel and the service a stream channel and a task of its own.
///
/// A connection carries one request at a time and comes back to its lane when the answer is
/// complete and the request was sent in full; one that failed, or was left mid-request, is
/// closed. When a lane has no idle connection the request takes the loop's HTTP/2 connection
/// instead, and one more connection is made for the next (up to `perLoop`). Connections idle
/// for `idleTimeout` (the gateway's `limits.idleTimeoutSeconds`) are closed: each lane is swept
/// four times in that time, so that a burst's connections do not stay open for good.
/// `pinhole_gateway_kept_alive_connections` counts the connections open or being made.
final class KeptAliveLanes: Sendable {
    private let targets: [ServiceName: UpstreamPool.Target]
    private let tls: NIOSSLContext
    private let connectTimeout: TimeAmount
    let perLoop: Int
    let idleTimeout: TimeAmount
    private let lanes = Mutex<[UpstreamPool.RelayKey: Lane]>([:])
    private let closed = Atomic<Bool>(false)
    private let gauge: Prometheus.Gauge?

    private struct Lane {
        /// Idle connections, the most recently used last, with when each became idle.
        var idle: [(channel: any Channel, since: NIODeadline)] = []
        /// Connections open or being made, idle or busy.
        var open = 0
        /// Whether its loop sweeps it for idle connections (from its first connection on).
        var swept = false

        /// Its most recently used idle connection that is still open; without one, whether to
        /// make one more (counted as open from now) while it has fewer than `limit`.
        mutating func takeIdle(limit: Int) -> (found: (any Channel)?, connect: Bool) {
            // One that closed is dropped here if its close has not removed it yet.
            while let (channel, _) = idle.popLast() {
                if channel.isActive { return (channel, false) }
            }
            guard open < limit else { return (nil, false) }
            open += 1
            return (nil, true)
        }
    }

    init(
        targets: [ServiceName: UpstreamPool.Target], tls: NIOSSLContext, connectTimeout: TimeAmount,
        perLoop: Int, idleTimeout: TimeAmount = .seconds(60), registry: PrometheusCollectorRegistry? = nil
    ) {
        self.targets = targets
        self.tls = tls
        self.connectTimeout = connectTimeout
        self.perLoop = perLoop
        self.idleTimeout = idleTimeout
        self.gauge = registry?.makeGauge(
            name: "pinhole_gateway_kept_alive_connections",
            help: "Kept-alive HTTP/1.1 connections from the relay to the services, open or being made.")
    }

    /// An idle connection to `service` owned by `loop`, taken from its lane (given back with
    /// ``giveBack(_:to:)``). Without one, nil, and one more is made for a later request while
    /// the lane has room.
    func take(to service: ServiceName, on loop: any EventLoop) -> (any Channel)? {
        guard let target = targets[service], !closed.load(ordering: .relaxed) else { return nil }
        let key = UpstreamPool.RelayKey(loop: ObjectIdentifier(loop), service: service)
        let (found, connect) = lanes.withLock { lanes in
            // In place: a copy of the lane would copy its idle list at the first `popLast`, for
            // every request.
            lanes[key, default: Lane()].takeIdle(limit: perLoop)
        }
        if connect {
            gauge?.increment()
            make(key, target: target, loop: loop)
        }
        return found
    }

    /// `channel` answered its request in full and may take the next.
    func giveBack(_ channel: any Channel, to service: ServiceName) {
        let key = UpstreamPool.RelayKey(loop: ObjectIdentifier(channel.eventLoop), service: service)
        let kept = lanes.withLock { lanes -> Bool in
            guard !closed.load(ordering: .relaxed), channel.isActive else { return false }
            lanes[key, default: Lane()].idle.append((channel, .now()))
            return true
        }
        if !kept { channel.close(promise: nil) }
    }

    /// Closes every idle connection; busy ones close as their requests end (nothing is given
    /// back any more).
    func close() {
        closed.store(true, ordering: .relaxed)
        let idle = lanes.withLock { lanes in
            defer { for key in lanes.keys { lanes[key]?.idle = [] } }
            return lanes.values.flatMap { $0.idle.map(\.channel) }
        }
        for channel in idle { channel.close(promise: nil) }
    }

    /// Connects to `target` on `loop` (mutual TLS, ALPN `http/1.1`) and puts the connection in
    /// the lane; it leaves the lane's count when it closes.
    private func make(_ key: UpstreamPool.RelayKey, target: UpstreamPool.Target, loop: any EventLoop) {
        let connected = ClientBootstrap(group: loop)
            .connectTimeout(connectTimeout)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { [tls] channel in
                channel.eventLoop.makeCompletedFuture {
                    try UpstreamPool.addHTTP1ClientHandlers(
                        to: channel.pipeline.syncOperations, tls: tls, serverName: target.serverName,
                        informational: .drop)
                }
            }
            .connect(host: target.host, port: target.port)
        connected.whenComplete { result in
            guard case .success(let channel) = result else {
                self.lanes.withLock { $0[key]?.open -= 1 }
                self.gauge?.decrement()
                return
            }
            channel.closeFuture.whenComplete { _ in
                self.lanes.withLock { lanes in
                    lanes[key]?.open -= 1
                    lanes[key]?.idle.removeAll { $0.channel === channel }
                }
                self.gauge?.decrement()
            }
            self.giveBack(channel, to: key.service)
            self.sweep(key, on: loop)
        }
    }

    /// Closes, every quarter of `idleTimeout`, the lane's connections idle for longer (started
    /// once per lane; it stops when the lanes close).
    private func sweep(_ key: UpstreamPool.RelayKey, on loop: any EventLoop) {
        let start = lanes.withLock { lanes -> Bool in
            guard lanes[key]?.swept == false else { return false }
            lanes[key]?.swept = true
            return true
        }
        guard start else { return }
        let every = TimeAmount.nanoseconds(max(idleTimeout.nanoseconds / 4, 1_000_000))
        loop.scheduleRepeatedTask(initialDelay: every, delay: every) { task in
            guard !self.closed.load(ordering: .relaxed) else {
                task.cancel()
                return
            }
            let oldest = NIODeadline.now() - self.idleTimeout
            let stale = self.lanes.withLock { lanes -> [any Channel] in
                guard let idle = lanes[key]?.idle else { return [] }
                // Given back in order, so the stale ones come first.
                let kept = idle.firstIndex { $0.since >= oldest } ?? idle.endIndex
                lanes[key]?.idle = Array(idle[kept...])
                return idle[..<kept].map(\.channel)
            }
            for channel in stale { channel.close(promise: nil) }
        }
    }
}
