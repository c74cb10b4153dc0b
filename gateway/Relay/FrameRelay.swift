import HTTPTypes
import NIOCore
import NIOHPACK
import NIOHTTP2
import ServiceHTTP

/// The gateway's fastest way through, on a client's HTTP/2 connection between NIOHTTP2's
/// handler and its stream multiplexer: a request ``RelayRules`` admits whose HEADERS end the
/// stream, or whose body has a declared length a stream's full window holds (a JSON body), is
/// answered here frame by frame (``FrameStream``), without a stream channel, its pipeline or
/// its codec; its body's DATA frames go on to the service, and its answer comes from the
/// service's kept-alive connection or stream on the same loop (``UpstreamRelay``), as
/// ``StreamRelay``'s does.
///
/// Every other frame goes on to the multiplexer untouched: a request this declines (or plans
/// not to relay once its turn came, with the DATA frames it held) becomes a stream channel with
/// a ``StreamRelay``, which relays it the same way or hands it to the Hummingbird pipeline (a
/// body of unknown length, anything the pipeline answers). Both read the same token cache,
/// rate limiter and turns, so a request is answered the same way whichever takes it.
///
/// A framed stream's window is opened once, when its body is sent on: from the small window
/// every stream of the connection begins with (``HTTP2Windows/waiting``: what a request
/// waiting for its turn may make the gateway hold) to its declared length, never further (the
/// connection's own window is NIOHTTP2's multiplexer's business, as the frames pass it by).
final class FrameRelay: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    let rules: RelayRules
    private var streams: [HTTP2StreamID: FrameStream] = [:]
    private var context: ChannelHandlerContext?
    /// The highest stream the client opened: a HEADERS frame above it begins a request, one at
    /// or below it is a trailer of a stream already open.
    private var lastOpened = HTTP2StreamID.rootStream
    private var flushPending = false
    private var reading = false
    /// When each relayed request's time to be answered runs out, in the order they were set:
    /// every relayed request has the same timeout (`upstream.timeoutSeconds`), so that is
    /// the order they run out in. One timer waits for the earliest; an entry whose request
    /// was answered is dropped when it comes to the front, where a timer per request cost a
    /// scheduled task made and cancelled (a search of the loop's timers) for every request.
    private var deadlines = CircularBuffer<(at: NIODeadline, id: HTTP2StreamID)>()
    private var deadlineTimer: Scheduled<Void>?

    init(rules: RelayRules) {
        self.rules = rules
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reading = true
        let frame = unwrapInboundIn(data)
        if let stream = streams[frame.streamID] {
            switch frame.payload {
            case .data, .headers: stream.clientSent(frame)
            case .rstStream: stream.clientWentAway()
            default: break
            }
            return
        }
        guard case .headers(let headers) = frame.payload, frame.streamID > lastOpened else {
            context.fireChannelRead(data)
            return
        }
        lastOpened = frame.streamID
        guard let head = Self.request(headers.headers), let length = headers.endStream ? 0 : Self.declaredBody(head),
            let admission = rules.admit(head, connection: context.channel)
        else {
            context.fireChannelRead(data)
            return
        }
        let stream = FrameStream(request: frame, relay: self, admission: admission, bodyLength: length)
        streams[frame.streamID] = stream
        stream.begin(on: context.eventLoop)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        if flushPending {
            flushPending = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let closed as StreamClosedEvent:
            streams.removeValue(forKey: closed.streamID)?.clientWentAway()
            while let first = deadlines.first, streams[first.id] == nil { deadlines.removeFirst() }
        case let window as NIOHTTP2WindowUpdatedEvent where window.inboundWindowSize != nil:
            // The multiplexer has no stream to tell of it; one handed over later is told then.
            streams[window.streamID]?.window = window
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            for stream in streams.values { stream.clientWritable() }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        let open = streams.values
        streams = [:]
        deadlines.removeAll()
        deadlineTimer?.cancel()
        deadlineTimer = nil
        for stream in open { stream.clientWentAway() }
        context.fireChannelInactive()
    }

    // MARK: For the streams

    var channel: (any Channel)? { context?.channel }

    var isWritable: Bool { context?.channel.isWritable ?? false }

    /// Gives `request`, a HEADERS frame this took, to the multiplexer after all, with the
    /// frames of its body this held (`body`), and with them the stream's later frames. Its new
    /// stream channel is told of its window as the last frame left it (`window`): it gives the
    /// window back as it reads only once it knows it.
    func handOver(_ request: HTTP2Frame, body: [HTTP2Frame], window: NIOHTTP2WindowUpdatedEvent?) {
        guard let context, streams.removeValue(forKey: request.streamID) != nil else { return }
        context.fireChannelRead(wrapInboundOut(request))
        for frame in body { context.fireChannelRead(wrapInboundOut(frame)) }
        if let window { context.fireUserInboundEventTriggered(window) }
        // Outside a read the streams hear of it only from this.
        if !reading { context.fireChannelReadComplete() }
    }

    func write(_ frame: HTTP2Frame) {
        context?.write(wrapOutboundOut(frame), promise: nil)
    }

    /// Lets the client send all of a body of `length` on stream `id`, which began with the
    /// small window (``HTTP2Windows/waiting``).
    func widen(_ id: HTTP2StreamID, toHold length: Int) {
        guard length > HTTP2Windows.waiting else { return }
        write(HTTP2Frame(streamID: id, payload: .windowUpdate(windowSizeIncrement: length - HTTP2Windows.waiting)))
    }

    /// Tells stream `id` when `timeout` has passed (``FrameStream/deadlinePassed()``), unless
    /// it has closed by then.
    func expire(_ id: HTTP2StreamID, in timeout: TimeAmount) {
        deadlines.append((.now() + timeout, id))
        scheduleDeadlineTimer()
    }

    /// Arms the timer for the earliest deadline, unless it is armed already.
    private func scheduleDeadlineTimer() {
        guard deadlineTimer == nil, let context, let first = deadlines.first else { return }
        deadlineTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: first.at) { [weak self] in
            self?.deadlinesPassed()
        }
    }

    private func deadlinesPassed() {
        deadlineTimer = nil
        let now = NIODeadline.now()
        while let first = deadlines.first, first.at <= now {
            deadlines.removeFirst()
            streams[first.id]?.deadlinePassed()
        }
        scheduleDeadlineTimer()
    }

    /// Flushes now, or once the read in progress is over (its other answers go in the same
    /// flush).
    func flush() {
        if reading {
            flushPending = true
        } else {
            context?.flush()
        }
    }

    // MARK: HTTP types

    /// The length of the body `head` announces, if it has one a stream's full window holds
    /// (NIOHTTP2 holds the client to that length).
    static func declaredBody(_ head: HTTPRequest) -> Int? {
        guard let length = head.headerFields[.contentLength], let declared = StrictNumbers.count(length),
            declared <= HTTP2Windows.stream
        else { return nil }
        return declared
    }

    /// The request a HEADERS frame's block carries, as NIO's HTTP types codec reads it, or nil
    /// for one that codec should judge (a pseudo-header unknown, missing or twice, a name HTTP
    /// types refuses). NIOHTTP2 has validated the block already (lowercase names,
    /// pseudo-headers first, no connection-specific fields).
    static func request(_ headers: HPACKHeaders) -> HTTPRequest? {
        var method: HTTPRequest.Method?
        var scheme: String?
        var authority: String?
        var path: String?
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count)
        for (name, value, indexing) in headers {
            if name.utf8.first == UInt8(ascii: ":") {
                switch name {
                case ":method" where method == nil: method = HTTPRequest.Method(value)
                case ":scheme" where scheme == nil: scheme = value
                case ":authority" where authority == nil: authority = value
                case ":path" where path == nil: path = value
                default: return nil
                }
            } else {
                guard let fieldName = HTTPField.Name(name) else { return nil }
                var field = HTTPField(name: fieldName, value: value)
                field.indexingStrategy = strategy(indexing)
                fields.append(field)
            }
        }
        guard let method, scheme != nil, path != nil else { return nil }
        return HTTPRequest(method: method, scheme: scheme, authority: authority, path: path, headerFields: fields)
    }

    private static func strategy(_ indexing: HPACKIndexing) -> HTTPField.DynamicTableIndexingStrategy {
        switch indexing {
        case .indexable: .automatic
        case .nonIndexable: .avoid
        case .neverIndexed: .disallow
        }
    }

    private static func indexing(_ strategy: HTTPField.DynamicTableIndexingStrategy) -> HPACKIndexing {
        switch strategy {
        case .avoid: .nonIndexable
        case .disallow: .neverIndexed
        default: .indexable
        }
    }

    /// A HEADERS block for `response`.
    static func headers(_ response: HTTPResponse) -> HPACKHeaders {
        var headers = HPACKHeaders()
        headers.reserveCapacity(response.headerFields.count + 1)
        headers.add(name: ":status", value: String(response.status.code))
        for field in response.headerFields {
            headers.add(
                name: field.name.canonicalName, value: field.value,
                indexing: indexing(field.indexingStrategy))
        }
        return headers
    }
}
