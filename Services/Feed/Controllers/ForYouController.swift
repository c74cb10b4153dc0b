import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// For You: `GET /v1/feed/for-you` ranked server-side (``ForYouRanking``), and
/// `POST /v1/feed/signals`, what the app saw, dwelt on, skipped and opened.
struct ForYouController: Sendable {
    let store: FeedStore
    /// The rankings of first pages, for the pages after them.
    let rankings: ForYouRankings
    let clock: any WallClock

    static let maxSignals = 100

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/feed/for-you", use: forYou)
        routes.authenticated.post("/v1/feed/signals", use: signals)
    }

    /// Where a For You page starts: the ranking's seed and time, and how many came before.
    struct Position: Codable, Sendable {
        var seed: UInt64
        var asOf: Date
        var offset: Int
    }

    /// One page of the ranking. `seed` (a whole number) reorders near-equals; without one, the
    /// reader's seed of the day. Later pages read the first page's ranking (made again, as of
    /// its time, if it is no longer kept), leaving out what was hidden, deleted, muted or
    /// blocked since. `debug=true` adds each score's factors for an admin (ignored for anyone
    /// else).
    @Sendable func forYou(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let page = try PageRequest<Position>(request: request)
        let query = request.uri.queryParameters
        let now = clock.now()
        var position = page.position ?? Position(seed: 0, asOf: now, offset: 0)
        if page.position == nil {
            if let text = query["seed"] {
                // Int64's range: what a typed client (Swift's Int, Kotlin's Long) can send.
                guard let seed = Int64(String(text)), seed >= 0 else {
                    throw ServiceError.validation("`seed` must be a whole number from 0 to 2^63 - 1.")
                }
                position.seed = UInt64(seed)
            } else {
                let day = Int(now.timeIntervalSince1970 / 86400)
                position.seed = UInt64(ForYouRanking.unit(seed: UInt64(day), user.userID) * Double(1 << 53))
            }
        }
        guard [nil, "true", "false"].contains(query["debug"].map(String.init)) else {
            throw ServiceError.validation("`debug` is `true` or `false`.")
        }
        let debug = query["debug"] == "true" && user.has(.admin)
        let key = ForYouRankingKey(viewer: user.userID, seed: position.seed)
        let ranking = try await rankings.ranking(
            for: key, asOf: JSONCoding.milliseconds(position.asOf), fresh: page.position == nil
        ) {
            try await store.rankForYou(viewer: user.userID, now: position.asOf, seed: position.seed)
        }
        let slice = ranking.dropFirst(position.offset).prefix(page.limit)
        let shown = try await store.forYouPage(slice, viewer: user.userID)
        let items = shown.map { post, ranked in
            ForYouItem(
                post: post, reasons: ranked.reasons,
                debug: debug
                    ? ForYouDebug(
                        score: ranked.score, source: ranked.candidate.source.rawValue, engagement: ranked.engagement,
                        decay: ranked.decay, sourceWeight: ranked.sourceWeight, affinity: ranked.candidate.affinity,
                        affinityWeight: ranked.affinityWeight, jitter: ranked.jitter) : nil)
        }
        var next = position
        next.offset += slice.count
        return try Response.json(
            Page(items: items, nextCursor: next.offset < ranking.count ? Cursor.encode(next) : nil))
    }

    /// Takes up to 100 signals at once; a signal whose id was taken already counts once (202).
    @Sendable func signals(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let batch = try await request.decodeJSON(as: FeedSignalBatch.self, context: context)
        guard (1...Self.maxSignals).contains(batch.signals.count) else {
            throw ServiceError.validation("Send 1 to \(Self.maxSignals) signals at once.")
        }
        let signals = try batch.signals.enumerated().map { index, signal in
            guard (1...64).contains(signal.id.unicodeScalars.count) else {
                throw ServiceError.validation("`signals[\(index)].id` is 1 to 64 characters.")
            }
            let postId = try ObjectID.field(signal.postId, "signals[\(index)].postId")
            if let dwell = signal.dwellMs, !(0...600_000).contains(dwell) {
                throw ServiceError.validation("`signals[\(index)].dwellMs` is 0 to 600000.")
            }
            if signal.kind == .dwell, signal.dwellMs == nil {
                throw ServiceError.validation("`signals[\(index)]` is a dwell without `dwellMs`.")
            }
            return FeedSignal(id: signal.id, postId: postId, kind: signal.kind, dwellMs: signal.dwellMs)
        }
        let receipt = try await store.record(signals, of: user.userID, at: clock.now())
        return try Response.json(receipt, status: .accepted)
    }
}
