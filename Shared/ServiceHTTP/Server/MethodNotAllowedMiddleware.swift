import HTTPTypes
import Hummingbird
import Synchronization

/// A request for a path that routes serve, with a method none of them takes, is answered 405
/// `METHOD_NOT_ALLOWED` with an `Allow` header naming the methods that are (RFC 9110
/// §15.5.6), not 404: only a path nothing serves is "not found".
///
/// `Allow` names `HEAD` wherever it names `GET`: the kit's routers answer it (``ServiceRuntime/
/// makeRouter(context:requestLogLevel:drainLimit:)``).
///
/// The router's own "no route" (thrown when path and method do not both match) is caught here;
/// the methods of each path are read from the router's routes once, on the first miss, when
/// every controller has registered.
public struct MethodNotAllowedMiddleware<Context: ServiceRequestContextProtocol>: RouterMiddleware {
    let table: RouteMethodTable

    public init(router: Router<Context>) {
        nonisolated(unsafe) let router = router
        table = RouteMethodTable { router.routes.map { ($0.method, $0.path.description) } }
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let allowed = table.methods(for: request.uri.path)
            guard !allowed.isEmpty else { throw error }
            throw ServiceError(
                .methodNotAllowed, "\(request.method) is not allowed on \(request.uri.path); use \(allowed).",
                headers: [.allow: allowed])
        }
    }
}

/// Which methods each route path takes, matched segment by segment (`:name`, `{name}` and `*`
/// stand for any one segment). Catch-all routes (`/**`: the gateway's forwarding) say nothing
/// about a path's methods and are left out.
public final class RouteMethodTable: Sendable {
    struct Entry: Sendable {
        var pattern: [Substring]
        var methods: Set<String>
    }

    private let load: @Sendable () -> [(HTTPRequest.Method, String)]
    private let entries = Mutex<[Entry]?>(nil)

    public init(load: @escaping @Sendable () -> [(HTTPRequest.Method, String)]) {
        self.load = load
    }

    /// The methods routes take at `path`, as an `Allow` value, `HEAD` beside `GET` (the router
    /// answers it as the `GET`); empty when no route serves the path.
    public func methods(for path: String) -> String {
        let entries = self.entries.withLock { stored in
            if let stored { return stored }
            var byPattern: [String: Set<String>] = [:]
            for (method, pattern) in load() where !pattern.hasSuffix("**") {
                byPattern[pattern, default: []].insert(method.rawValue)
            }
            let built = byPattern.map { Entry(pattern: $0.key.split(separator: "/"), methods: $0.value) }
            stored = built
            return built
        }
        // As the router resolves a path: a literal segment wins over a parameter in its place,
        // so only the most literal of the patterns that match speak for the path.
        let segments = path.split(separator: "/")
        let matching = entries.filter { Self.matches(segments, $0.pattern) }
        guard let best = matching.map({ Self.literals($0.pattern) }).max(by: { $0.lexicographicallyPrecedes($1) })
        else { return "" }
        var methods = matching.filter { Self.literals($0.pattern) == best }.reduce(into: Set<String>()) {
            $0.formUnion($1.methods)
        }
        if methods.contains(HTTPRequest.Method.get.rawValue) { methods.insert(HTTPRequest.Method.head.rawValue) }
        return methods.sorted().joined(separator: ", ")
    }

    /// 1 where the pattern names a segment literally, 0 where any segment fits.
    static func literals(_ pattern: [Substring]) -> [Int] {
        pattern.map { isParameter($0) ? 0 : 1 }
    }

    static func isParameter(_ part: Substring) -> Bool {
        part == "*" || part.hasPrefix(":") || (part.hasPrefix("{") && part.hasSuffix("}"))
    }

    static func matches(_ segments: [Substring], _ pattern: [Substring]) -> Bool {
        guard segments.count == pattern.count else { return false }
        for (index, part) in pattern.enumerated() {
            guard isParameter(part) || part == segments[index] else { return false }
        }
        return true
    }
}
