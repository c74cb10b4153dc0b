import NIOCore
import NIOTLS
import Synchronization

/// The first handler of every public connection, from accept to close, whatever protocol it
/// ends up speaking. It makes sure a connection cannot outlive its purpose:
/// - more than `perAddress` connections from one client address are closed on arrival, and
///   so is every connection from an address refused for flooding HTTP/2 (``ConnectionCounter``);
///   a trusted proxy's connections carry many clients and are not counted (``TrustedProxies``);
/// - a connection that has not finished TLS and protocol selection within `handshake` is
///   closed (a client that connects and sends nothing, or half a preface);
/// - a peer that goes away (its side closed) before a protocol was chosen, or on HTTP/2, is
///   closed at once: the server allows half-closed connections for HTTP/1.1, so without this
///   such connections would sit in `CLOSE-WAIT` forever;
/// - on shutdown, a connection still open `grace` after it was asked to finish is closed,
///   whatever it is doing, so that the process always exits.
final class ConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    struct Limits: Sendable {
        var perAddress: Int
        var handshake: TimeAmount
        var grace: TimeAmount
        /// Peers whose connections carry many clients: not limited per address.
        var trusted: TrustedProxies = .none
    }

    enum Phase {
        case negotiating
        case http1
        case http2
    }

    private let limits: Limits
    private let counter: ConnectionCounter
    private var address: String?
    private var phase = Phase.negotiating
    private var deadline: Scheduled<Void>?

    init(limits: Limits, counter: ConnectionCounter) {
        self.limits = limits
        self.counter = counter
    }

    // The server may add this handler to a connection that is already active.
    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    private func start(context: ChannelHandlerContext) {
        guard address == nil, deadline == nil else { return }
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: limits.handshake) { channel.close(promise: nil) }
        if limits.trusted.contains(address) { return }
        guard counter.admit(address, limit: limits.perAddress) else {
            // Closed once the server has finished setting the connection up.
            context.eventLoop.execute { channel.close(promise: nil) }
            return
        }
        self.address = address
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        if let address { counter.release(address) }
        address = nil
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case ChannelEvent.inputClosed where phase != .http1:
            context.close(promise: nil)
            return
        case is ChannelShouldQuiesceEvent:
            if phase == .negotiating {
                context.close(promise: nil)
                return
            }
            let channel = context.channel
            context.eventLoop.scheduleTask(in: limits.grace) { channel.close(promise: nil) }
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Called by the connection's setup once a protocol was chosen: the handshake deadline no
    /// longer applies (the protocol's own timeouts do).
    func negotiated(_ phase: Phase) {
        self.phase = phase
        deadline?.cancel()
        deadline = nil
    }
}

/// Open public connections per client address, shared by every connection of the listener,
/// and the addresses refused for a while because one of their connections flooded the gateway.
final class ConnectionCounter: Sendable {
    private struct State {
        var open: [String: Int] = [:]
        var refusedUntil: [String: ContinuousClock.Instant] = [:]
    }

    private let state = Mutex(State())

    /// Counts a new connection from `address`, unless it already has `limit` open or is refused.
    func admit(_ address: String, limit: Int) -> Bool {
        state.withLock { state in
            if let until = state.refusedUntil[address] {
                guard until <= .now else { return false }
                state.refusedUntil[address] = nil
            }
            let open = state.open[address, default: 0]
            guard open < limit else { return false }
            state.open[address] = open + 1
            return true
        }
    }

    func release(_ address: String) {
        state.withLock { state in
            let open = state.open[address, default: 1] - 1
            state.open[address] = open > 0 ? open : nil
        }
    }

    /// Refuses new connections from `address` for `duration` (its open ones are not touched).
    /// Expired entries are swept here, so the table holds only recent offenders.
    func refuse(_ address: String, for duration: Duration) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.refusedUntil = state.refusedUntil.filter { $0.value > now }
            state.refusedUntil[address] = now + duration
        }
    }

    /// Open connections from `address` (tests).
    func open(from address: String) -> Int {
        state.withLock { $0.open[address, default: 0] }
    }
}
