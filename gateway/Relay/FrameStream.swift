import HTTPTypes
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOHTTPTypes
import ServiceHTTP

/// One request that ``FrameRelay`` answers itself. It takes its connection's turn as
/// ``StreamRelay`` does (waiting for it, if it must, as a callback, and holding what of its
/// body arrives meanwhile); then, if ``RelayRules`` plans it, its request goes to the service
/// as ``StreamRelay`` sends one (a kept-alive connection or a stream on the same loop, through
/// ``UpstreamRelay``), its body's DATA frames after it as they come (the stream's window then
/// opened to the declared length; a GET's body, if any, stays here), and the answer comes
/// back as HEADERS and DATA frames on the client's stream, with the same headers, ids,
/// refusals, log line and metrics as ``StreamRelay``'s. The
/// answer's last frame carries END_STREAM; while the client's connection cannot take more,
/// the service is not read. If it is not planned (no connection to the service on this loop
/// yet, or the rate limit refuses), its HEADERS frame and the body held go on to the stream
/// multiplexer, and the pipeline answers it.
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
    /// The body's declared length (0 for none).
    private let bodyLength: Int
    /// The stream's inbound window as the last frame of its body left it, for the multiplexer
    /// if the pipeline must answer it (``FrameRelay``).
    var window: NIOHTTP2WindowUpdatedEvent?
    /// The frames of its body that came before it was sent on (for the service, or the
    /// multiplexer), and whether its last has come (END_STREAM, or trailers, which are dropped
    /// as the pipeline drops them).
    private var body: [HTTP2Frame] = []
    private var requestEnded: Bool
    /// The bytes of its body that came, held or sent on.
    private var bodyReceived = 0
    /// Whether the service was sent the request's end.
    private var sentEnd = false
    private var plan: RelayPlan!
    private var state = State.waiting
    private var upstream: UpstreamRelay?
    private var holdsTurn = false
    private var started = NIODeadline.now()
    private var status: Int?
    /// The answer's head or last body part, not yet written: the answer's end goes on it.
    private var held: HTTP2Frame.FramePayload?

    init(request: HTTP2Frame, relay: FrameRelay, admission: RelayAdmission, bodyLength: Int) {
        self.id = request.streamID
        self.request = request
        self.bodyLength = bodyLength
        self.relay = relay
        self.shares = relay.rules.shares
        self.log = relay.rules.log
        self.admission = admission
        if case .headers(let headers) = request.payload {
            requestEnded = headers.endStream
        } else {
            requestEnded = true
        }
    }

    /// Takes the connection's turn, or waits for it.
    func begin(on loop: any EventLoop) {
        guard state == .waiting else { return }
        let bound = NIOLoopBound(self, eventLoop: loop)
        if let ticket = shares.enter(admission.turn, whenTaken: { loop.execute { bound.value.turnTaken() } }) {
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
            relay.handOver(request, body: body, window: window)
            body = []
            return
        }
        self.plan = plan
        state = .relaying
        started = .now()
        start(plan, relay: relay)
    }

    /// Sends the request to the service, and gives it until the route's timeout to answer.
    private func start(_ plan: RelayPlan, relay: FrameRelay) {
        let upstream = UpstreamRelay(owner: self)
        self.upstream = upstream
        if let keptAlive = plan.keptAlive {
            upstream.attach(to: keptAlive, lanes: relay.rules.pool.keptAlive, service: plan.service)
        } else {
            plan.connection.openRelayStream(upstream)
        }
        upstream.send(.head(plan.upstreamHead))
        let early = body
        body = []
        for frame in early { forward(frame) }
        if !plan.forwardsBody || requestEnded || bodyWhole {
            sendEnd()
        } else {
            relay.widen(id, toHold: bodyLength)
            relay.flush()
        }
        upstream.flush()
        guard case .relaying = state else { return }
        relay.expire(id, in: plan.timeout)
    }

    /// The route's timeout passed (``FrameRelay/expire(_:in:)``): without an answer by now, the
    /// service's side goes and the client gets 504.
    func deadlinePassed() {
        guard case .relaying = state else { return }
        upstream?.abandon()
        answer(
            ServiceError(
                .upstreamTimeout, "An internal service did not answer in time.", headers: [.retryAfter: "1"]))
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

    /// A frame of the request's body, or its trailers.
    func clientSent(_ frame: HTTP2Frame) {
        if case .data(let data) = frame.payload { bodyReceived += data.data.readableBytes }
        switch state {
        case .waiting, .queued:
            body.append(frame)
            if Self.ends(frame) { requestEnded = true }
        case .relaying, .answering:
            forward(frame)
            upstream?.flush()
        case .finished:
            return
        }
    }

    func clientWritable() {
        if case .answering = state { upstream?.resumeReading() }
    }

    // MARK: The service's side (``UpstreamRelay``)

    func upstreamHead(_ response: HTTPResponse) {
        // 100 Continue is this hop's own business; nothing relayed here has other informational answers.
        guard case .relaying = state, response.status.kind != .informational else { return }
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
        // The service answered before the request's end: its side of the exchange is reset
        // (a stream left half open would hold a place on its connection; a kept-alive
        // connection is not given back), and the rest of the body is dropped here.
        if !sentEnd { upstream?.reset() }
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
        stopUnfinishedBody()
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
    func upstreamFailed(cause: String) {
        switch state {
        case .relaying:
            answer(
                ServiceError(
                    .upstreamUnavailable, "An internal service is unavailable; try again shortly.",
                    headers: [.retryAfter: "1"], cause: cause))
        case .answering:
            log.answerCutOff(service: plan.service, requestID: plan.requestID, cause: cause)
            held = nil
            relay?.write(HTTP2Frame(streamID: id, payload: .rstStream(.internalError)))
            relay?.flush()
            finish(status: nil)
        case .waiting, .queued, .finished:
            break
        }
    }

    // MARK: Steps

    /// Sends on a frame of the body (a GET's is not sent), and the request's end with its
    /// last, or with the last of its declared bytes (NIOHTTP2 lets no more come): the service
    /// then has the request whole even if the client's END_STREAM comes in a frame of its own.
    private func forward(_ frame: HTTP2Frame) {
        let last = Self.ends(frame)
        if last { requestEnded = true }
        guard plan.forwardsBody, !sentEnd else { return }
        if case .data(let data) = frame.payload, case .byteBuffer(let buffer) = data.data, buffer.readableBytes > 0 {
            upstream?.send(.body(buffer))
        }
        if last || bodyWhole { sendEnd() }
    }

    /// Whether every byte of the declared body came: only its END_STREAM (or trailers, which
    /// are dropped) may still follow.
    private var bodyWhole: Bool { bodyLength > 0 && bodyReceived >= bodyLength }

    /// After a complete answer to a request whose body is still coming: RST_STREAM with
    /// NO_ERROR asks the client to stop sending it (RFC 9113 §8.1). Not once the whole body
    /// came: its END_STREAM closes the stream, and a client that sends it in a frame of its own
    /// could take the reset for a failed request.
    private func stopUnfinishedBody() {
        guard !requestEnded, !bodyWhole else { return }
        requestEnded = true
        relay?.write(HTTP2Frame(streamID: id, payload: .rstStream(.noError)))
    }

    private func sendEnd() {
        guard !sentEnd else { return }
        sentEnd = true
        upstream?.send(.end(nil))
    }

    /// Whether `frame` is the request's last: DATA with END_STREAM, or its trailers.
    private static func ends(_ frame: HTTP2Frame) -> Bool {
        switch frame.payload {
        case .data(let data): data.endStream
        case .headers: true
        default: false
        }
    }

    private func writeHeld() {
        guard let held else { return }
        self.held = nil
        relay?.write(HTTP2Frame(streamID: id, payload: held))
    }

    /// Answers with the error envelope, as the pipeline's ``ErrorMiddleware`` does.
    private func answer(_ failure: ServiceError) {
        log.upstreamFailed(service: plan.service, requestID: plan.requestID, failure: failure)
        upstream?.abandon()
        giveBackTurn()
        let (head, envelope) = plan.refusal(failure)
        relay?.write(HTTP2Frame(streamID: id, payload: .headers(.init(headers: FrameRelay.headers(head)))))
        relay?.write(HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(envelope), endStream: true))))
        stopUnfinishedBody()
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
        giveBackTurn()
        upstream = nil
        if let status, let plan {
            log.answered(plan, method: plan.upstreamHead.method, status: status, since: started, framed: true)
        }
    }
}
