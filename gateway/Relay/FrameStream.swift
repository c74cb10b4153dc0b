import HTTPTypes
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOHTTPTypes
import ServiceHTTP

/// One GET that ``FrameRelay`` answers itself. It takes its connection's turn as
/// ``StreamRelay`` does (waiting for it, if it must, as a callback); then, if ``RelayRules``
/// plans it, its request goes to the service as ``StreamRelay`` sends one (a kept-alive
/// connection or a stream on the same loop, through ``UpstreamRelay``), and the answer comes
/// back as HEADERS and DATA frames on the client's stream, with the same headers, ids,
/// refusals, log line and metrics as ``StreamRelay``'s. The answer's last frame carries
/// END_STREAM; while the client's connection cannot take more, the service is not read. If it
/// is not planned (no connection to the service on this loop yet, or the rate limit refuses),
/// its HEADERS frame goes on to the stream multiplexer, and the pipeline answers it.
final class FrameStream: RelayDownstream {
    private enum State: Equatable {
        /// Not yet at work.
        case waiting
        /// Waiting for its connection's turn.
        case queued(ticket: UInt64)
        /// Forwarded; no answer yet.
        case relaying
        /// The answer's head is out (or held); its body follows.
        case answering
        /// Answered, abandoned or handed over.
        case finished
    }

    let id: HTTP2StreamID
    private weak var relay: FrameRelay?
    private let shares: ConnectionShares
    private let log: RelayLog
    private let admission: RelayAdmission
    /// The request's HEADERS frame, for the multiplexer if the pipeline must answer it.
    private let request: HTTP2Frame
    private var plan: RelayPlan!
    private var state = State.waiting
    private var upstream: UpstreamRelay?
    private var timer: Scheduled<Void>?
    private var holdsTurn = false
    private var started = NIODeadline.now()
    private var status: Int?
    /// The answer's head or last body part, not yet written: the answer's end goes on it.
    private var held: HTTP2Frame.FramePayload?

    init(request: HTTP2Frame, relay: FrameRelay, admission: RelayAdmission) {
        self.id = request.streamID
        self.request = request
        self.relay = relay
        self.shares = relay.rules.shares
        self.log = relay.rules.log
        self.admission = admission
    }

    /// Takes the connection's turn, or waits for it. A turn given back on this loop (by
    /// another of the connection's relayed requests, as its answer begins) is taken at once;
    /// one given back elsewhere (the pipeline's requests run as tasks) comes through the loop.
    func begin(on loop: any EventLoop) {
        guard state == .waiting else { return }
        let bound = NIOLoopBound(self, eventLoop: loop)
        let whenTaken: @Sendable () -> Void = {
            if loop.inEventLoop {
                bound.value.turnTaken()
            } else {
                loop.execute { bound.value.turnTaken() }
            }
        }
        if let ticket = shares.enter(admission.turn, whenTaken: whenTaken) {
            state = .queued(ticket: ticket)
        } else {
            holdsTurn = true
            proceed()
        }
    }

    /// The connection's turn came for a queued request.
    private func turnTaken() {
        guard case .queued = state else {
            // The client went away meanwhile.
            shares.leave(admission.turn)
            return
        }
        holdsTurn = true
        proceed()
    }

    /// With the turn taken: relayed if ``RelayRules/plan(_:on:)`` says so, else handed to
    /// the multiplexer.
    private func proceed() {
        guard let relay, let channel = relay.channel else { return finish(status: nil) }
        guard let plan = relay.rules.plan(admission, on: channel) else {
            giveBackTurn()
            state = .finished
            relay.handOver(request)
            return
        }
        self.plan = plan
        state = .relaying
        started = .now()
        start(plan, relay: relay, loop: channel.eventLoop)
    }

    /// Sends the request to the service, and gives it until the route's timeout to answer.
    private func start(_ plan: RelayPlan, relay: FrameRelay, loop: any EventLoop) {
        let upstream = UpstreamRelay(owner: self)
        self.upstream = upstream
        if let keptAlive = plan.keptAlive {
            upstream.attach(to: keptAlive, lanes: relay.rules.pool.keptAlive, service: plan.service)
        } else {
            plan.connection.openRelayStream(upstream)
        }
        upstream.send(.head(plan.upstreamHead))
        upstream.send(.end(nil))
        upstream.flush()
        guard case .relaying = state else { return }
        timer = loop.assumeIsolated().scheduleTask(in: plan.timeout) { [weak self] in
            guard let self, case .relaying = self.state else { return }
            self.upstream?.abandon()
            self.answer(
                ServiceError(
                    .upstreamTimeout, "An internal service did not answer in time.", headers: [.retryAfter: "1"]))
        }
    }

    // MARK: The client's side (``FrameRelay``)

    /// The client reset the stream, or its connection went: the service's side goes too.
    func clientWentAway() {
        switch state {
        case .finished:
            return
        case .queued(let ticket):
            // A turn already given is given back when its call comes (``turnTaken()``).
            _ = shares.withdraw(ticket, from: admission.turn)
        default:
            upstream?.abandon()
        }
        finish(status: nil)
    }

    func clientWritable() {
        if case .answering = state { upstream?.resumeReading() }
    }

    // MARK: The service's side (``UpstreamRelay``)

    func upstreamHead(_ response: HTTPResponse) {
        // 100 Continue is this hop's own business; nothing relayed here has other informational answers.
        guard case .relaying = state, response.status.kind != .informational else { return }
        timer?.cancel()
        giveBackTurn()
        let head = plan.answerHead(response)
        state = .answering
        status = response.status.code
        held = .headers(.init(headers: FrameRelay.headers(head)))
    }

    func upstreamBody(_ buffer: ByteBuffer) {
        guard case .answering = state else { return }
        writeHeld()
        held = .data(.init(data: .byteBuffer(buffer)))
        if relay?.isWritable == false { upstream?.pauseReading() }
    }

    func upstreamEnd() {
        guard case .answering = state else { return }
        switch held {
        case .headers(var headers):
            headers.endStream = true
            relay?.write(HTTP2Frame(streamID: id, payload: .headers(headers)))
        case .data(var data):
            data.endStream = true
            relay?.write(HTTP2Frame(streamID: id, payload: .data(data)))
        default:
            relay?.write(
                HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(ByteBuffer()), endStream: true))))
        }
        held = nil
        relay?.flush()
        finish(status: status)
    }

    func upstreamReadComplete() {
        guard case .answering = state else { return }
        writeHeld()
        relay?.flush()
    }

    /// The service's side failed: before an answer began, the client gets 503; after, its
    /// stream is reset (a cut-off answer must not look complete).
    func upstreamFailed() {
        switch state {
        case .relaying:
            answer(
                ServiceError(
                    .upstreamUnavailable, "An internal service is unavailable; try again shortly.",
                    headers: [.retryAfter: "1"]))
        case .answering:
            held = nil
            relay?.write(HTTP2Frame(streamID: id, payload: .rstStream(.internalError)))
            relay?.flush()
            finish(status: nil)
        case .waiting, .queued, .finished:
            break
        }
    }

    // MARK: Steps

    private func writeHeld() {
        guard let held else { return }
        self.held = nil
        relay?.write(HTTP2Frame(streamID: id, payload: held))
    }

    /// Answers with the error envelope, as the pipeline's ``ErrorMiddleware`` does.
    private func answer(_ failure: ServiceError) {
        log.upstreamFailed(service: plan.service, requestID: plan.requestID, failure: failure)
        upstream?.abandon()
        timer?.cancel()
        giveBackTurn()
        let (head, body) = plan.refusal(failure)
        relay?.write(HTTP2Frame(streamID: id, payload: .headers(.init(headers: FrameRelay.headers(head)))))
        relay?.write(HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(body), endStream: true))))
        relay?.flush()
        finish(status: failure.status.code)
    }

    private func giveBackTurn() {
        guard holdsTurn else { return }
        holdsTurn = false
        shares.leave(admission.turn)
    }

    /// The request is over: its turn is given back, its line logged and counted (`status`
    /// nil: it was abandoned), and the service's side let go.
    private func finish(status: Int?) {
        state = .finished
        timer?.cancel()
        timer = nil
        giveBackTurn()
        upstream = nil
        if let status, let plan {
            log.answered(plan, method: plan.upstreamHead.method, status: status, since: started, framed: true)
        }
    }
}
