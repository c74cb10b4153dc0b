import Hummingbird

/// Gives each connection's forwarded requests their turns (``ConnectionShares``), from the
/// token check until the answer's head: a long answer's body streams outside the turn. A body
/// sent to an upload route takes no turn: it takes as long as the client's network does, and
/// a photo being posted must not hold up the feed on the same connection (their rate
/// limits bound those instead); downloads take turns. A stream reset while it waited is
/// dropped when its turn comes, not forwarded.
struct ConnectionShareMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let shares: ConnectionShares

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        if try context.requireRoute().body.isUpload, [.post, .put, .patch].contains(request.method) {
            return try await next(request, context)
        }
        let connection = ObjectIdentifier(context.connection)
        try await shares.enter(connection)
        defer { shares.leave(connection) }
        guard context.channel.isActive else { throw CancellationError() }
        return try await next(request, context)
    }
}
