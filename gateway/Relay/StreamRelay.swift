import HTTPTypes
import NIOCore
import NIOHTTPTypes
import ServiceHTTP

/// The gateway's fast way through for a client's HTTP/2 stream: a request ``RelayRules``
/// admits is forwarded from this handler, on the connection's event loop, to a stream of the
/// service's connection owned by the same loop (``UpstreamRelay``), and the answer is written
/// back from there: no task, no hop between threads, the request's and the answer's bodies
/// passed on as the buffers they arrive in, and each side read only as fast as the other
/// side takes it.
///
/// While a request waits for its turn, its stream is not read: the client can send no more of
/// its body than the small window a stream begins with (``HTTP2Windows/waiting``), which is
/// widened once the body is sent on (``WidenStreamWindow``).
///
/// It sits first in each stream's pipeline. Any other request's stream is handed over to
/// Hummingbird (which makes it a task of its own) and passes through untouched, to be answered
/// as the pipeline answers everything (``ProxyController``).
/// A relayed request is answered as the pipeline would answer it: the same headers both ways,
/// the `RateLimit` headers, `x-request-id` and `traceparent`, `UPSTREAM_UNAVAILABLE` (503)
/// when the service's stream fails before its answer began, `UPSTREAM_TIMEOUT` (504) when no
/// answer began in time, and the same access log line and request metrics.
final class StreamRelay: ChannelDuplexHandler, RemovableChannelHandler, RelayDownstream {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State {
        /// No head yet.
        case waiting
        /// Admitted, waiting for its connection's turn (what the client sends meanwhile is kept).
        case queued(ticket: UInt64)
        /// The pipeline has the request.
        case passing
        /// Forwarded; no answer yet.
        case relaying
        /// The answer's head is written; its body follows.
        case answering
        /// Answered (or abandoned): what the client still sends is dropped.
        case finished
    }

    private let rules: RelayRules
    private let handOver: WideWindowHTTP2<PublicHTTP1Channel>.HandOver
    private var state = State.waiting
    private var admission: RelayAdmission?
    /// Body parts that came while the request waited for its turn.
    private var held: [HTTPRequestPart] = []
    private var plan: RelayPlan?
    private var upstream: UpstreamRelay?
    private var context: ChannelHandlerContext?
    private var timer: Scheduled<Void>?
    private var holdsTurn = false
    private var requestEnded = false
    private var received = 0
    /// The answer's status, for its log line.
    private var status: Int?
    private var cutOff = false
    private var pendingFlush = false
    /// A read asked for while the request waited for its turn, made when it no longer waits.
    private var readHeld = false
    private var started = NIODeadline.now()

    init(rules: RelayRules, handOver: @escaping WideWindowHTTP2<PublicHTTP1Channel>.HandOver) {
        self.rules = rules
        self.handOver = handOver
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    // MARK: The client's side

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .passing:
            context.fireChannelRead(data)
        case .waiting:
            guard case .head(let head) = unwrapInboundIn(data), let connection = context.channel.parent,
                let admission = rules.admit(head, connection: connection)
            else {
                state = .passing
                handOver(context.channel)
                context.fireChannelRead(data)
                return
            }
            self.admission = admission
            let relay = NIOLoopBound(self, eventLoop: context.eventLoop)
            let loop = context.eventLoop
            if let ticket = rules.shares.enter(
                admission.turn, whenTaken: { loop.execute { relay.value.turnTaken() } })
            {
                state = .queued(ticket: ticket)
            } else {
                proceed(context: context, inReadCycle: true)
            }
        case .queued:
            // What the read under way brings (no more is read while it waits: at most the
            // small window the stream began with).
            held.append(unwrapInboundIn(data))
        case .relaying, .answering:
            forward(unwrapInboundIn(data))
        case .finished:
            return
        }
    }

    /// A part of the request's body, to the service (a GET's stays here). A body longer than
    /// the route takes (one sent without a length) is cut off: 413 if no answer began, as the
    /// pipeline's ``LimitedBody`` gives, and otherwise the answer that began wins.
    private func forward(_ part: HTTPRequestPart) {
        guard let plan, plan.forwardsBody, !requestEnded else { return }
        switch part {
        case .head: return
        case .body(let buffer):
            received += buffer.readableBytes
            guard received <= plan.bodyLimit else {
                requestEnded = true
                if case .relaying = state {
                    answer(LimitedBody.tooLarge(plan.bodyLimit))
                } else {
                    // The service's stream never gets its end: it is reset once the answer is in.
                    cutOff = true
                }
                return
            }
            upstream?.send(.body(buffer))
        case .end:
            requestEnded = true
            upstream?.send(.end(nil))
        }
        pendingFlush = true
    }

    /// No read while the request waits for its turn: what the client sends meanwhile stays in
    /// the stream, within its small window.
    func read(context: ChannelHandlerContext) {
        if case .queued = state {
            readHeld = true
        } else {
            context.read()
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if pendingFlush {
            pendingFlush = false
            upstream?.flush()
        }
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { upstream?.resumeReading() }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        // The client reset the stream or went away: the service's stream goes too.
        switch state {
        case .queued(let ticket):
            // A turn already given is given back when its call comes (``turnTaken()``).
            _ = rules.shares.withdraw(ticket, from: admission!.turn)
            state = .finished
        case .relaying, .answering:
            upstream?.abandon()
            finish(status: nil)
        default:
            break
        }
        context.fireChannelInactive()
    }

    // MARK: The service's side (``UpstreamRelay``)

    func upstreamHead(_ response: HTTPResponse) {
        // 100 Continue is this hop's own business; nothing relayed here has other informational answers.
        guard case .relaying = state, let context, let plan, response.status.kind != .informational else { return }
        timer?.cancel()
        giveBackTurn()
        let head = plan.answerHead(response)
        state = .answering
        status = response.status.code
        context.write(wrapOutboundOut(.head(head)), promise: nil)
    }

    func upstreamBody(_ buffer: ByteBuffer) {
        guard case .answering = state, let context else { return }
        context.write(wrapOutboundOut(.body(buffer)), promise: nil)
        if !context.channel.isWritable { upstream?.pauseReading() }
    }

    func upstreamEnd() {
        guard case .answering = state, let context else { return }
        if cutOff { upstream?.reset() }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        finish(status: status)
    }

    func upstreamReadComplete() {
        if case .answering = state { context?.flush() }
    }

    /// The service's stream failed: before an answer began, the client gets 503; after, its
    /// stream is reset (a cut-off answer must not look complete).
    func upstreamFailed(cause: String) {
        switch state {
        case .relaying:
            answer(
                ServiceError(
                    .upstreamUnavailable, "An internal service is unavailable; try again shortly.",
                    headers: [.retryAfter: "1"], cause: cause))
        case .answering:
            if let plan { rules.log.answerCutOff(service: plan.service, requestID: plan.requestID, cause: cause) }
            context?.close(promise: nil)
            finish(status: nil)
        default:
            break
        }
    }

    // MARK: Steps

    /// The connection's turn came for a queued request.
    private func turnTaken() {
        guard case .queued = state, let context else {
            // The client went away meanwhile.
            if let admission { rules.shares.leave(admission.turn) }
            return
        }
        proceed(context: context, inReadCycle: false)
        if pendingFlush {
            pendingFlush = false
            upstream?.flush()
        }
    }

    /// With the turn taken: relayed if ``RelayRules/plan(_:on:)`` says so, else handed to the
    /// pipeline with what it has read of the request.
    private func proceed(context: ChannelHandlerContext, inReadCycle: Bool) {
        guard let admission else { return }
        holdsTurn = true
        guard let plan = rules.plan(admission, on: context.channel) else {
            giveBackTurn()
            passOn(admission.head, context: context, inReadCycle: inReadCycle)
            return
        }
        start(plan, context: context)
        for part in held { forward(part) }
        held = []
        // The reads held while it waited come after what it held (a read delivers what the
        // stream has at once); then, with all the client has sent seen, a body still coming
        // gets the stream's full window.
        resumeReading(context: context)
        if plan.forwardsBody, !requestEnded {
            context.triggerUserOutboundEvent(WidenStreamWindow(), promise: nil)
        }
    }

    /// Hands the request to the pipeline with what was read of it.
    private func passOn(_ head: HTTPRequest, context: ChannelHandlerContext, inReadCycle: Bool) {
        state = .passing
        handOver(context.channel)
        context.fireChannelRead(wrapInboundOut(.head(head)))
        for part in held { context.fireChannelRead(wrapInboundOut(part)) }
        held = []
        // Outside a read the pipeline hears of these reads only from this.
        if !inReadCycle { context.fireChannelReadComplete() }
        resumeReading(context: context)
    }

    /// Makes the read held while the request waited for its turn.
    private func resumeReading(context: ChannelHandlerContext) {
        guard readHeld else { return }
        readHeld = false
        context.read()
    }

    private func start(_ plan: RelayPlan, context: ChannelHandlerContext) {
        self.plan = plan
        state = .relaying
        started = .now()
        let relay = UpstreamRelay(owner: self)
        upstream = relay
        if let keptAlive = plan.keptAlive {
            relay.attach(to: keptAlive, lanes: rules.pool.keptAlive, service: plan.service)
        } else {
            plan.connection.openRelayStream(relay)
        }
        relay.send(.head(plan.upstreamHead))
        if !plan.forwardsBody {
            requestEnded = true
            relay.send(.end(nil))
            relay.flush()
        } else {
            pendingFlush = true
        }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: plan.timeout) { [weak self] in
            guard let self, case .relaying = self.state else { return }
            self.upstream?.abandon()
            self.answer(
                ServiceError(
                    .upstreamTimeout, "An internal service did not answer in time.", headers: [.retryAfter: "1"]))
        }
    }

    /// Answers with the error envelope, as the pipeline's ``ErrorMiddleware`` does.
    private func answer(_ failure: ServiceError) {
        guard let context, let plan else { return }
        rules.log.upstreamFailed(service: plan.service, requestID: plan.requestID, failure: failure)
        upstream?.abandon()
        timer?.cancel()
        giveBackTurn()
        let (head, body) = plan.refusal(failure)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        finish(status: failure.status.code)
    }

    private func giveBackTurn() {
        guard holdsTurn, let admission else { return }
        holdsTurn = false
        rules.shares.leave(admission.turn)
    }

    /// The request is over: its turn is given back, its line logged and counted (`status`
    /// nil: it was abandoned), and the service's stream let go.
    private func finish(status: Int?) {
        guard let plan else { return }
        state = .finished
        timer?.cancel()
        timer = nil
        giveBackTurn()
        upstream = nil
        if let status {
            rules.log.answered(plan, method: plan.upstreamHead.method, status: status, since: started)
        }
    }
}
