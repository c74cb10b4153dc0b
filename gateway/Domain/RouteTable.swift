import HTTPTypes
import ServiceHTTP

/// Who may call a route.
enum Access: Sendable {
    /// No token needed (a token, if sent, is not checked).
    case `public`
    /// A valid access token is required; the gateway answers 401 before forwarding.
    case authenticated
}

/// How large a request body a route accepts.
enum BodyKind: Sendable {
    case json
    /// Streamed to the service over HTTP/1.1 (``UploadForwarder``).
    case upload
    /// An upload whose service answers `104 Upload Resumption Supported` before reading it
    /// (the IETF draft): streamed over the gateway's HTTP/2 connection, which carries that
    /// informational answer through to the client.
    case resumableUpload

    /// Whether the route takes upload-sized bodies.
    var isUpload: Bool { self != .json }
}

/// One entry of the route table.
struct GatewayRoute: Sendable {
    enum Match: Sendable {
        /// This exact path.
        case exact(String)
        /// This path or anything below it.
        case prefix(String)
        /// A path of these segments, `*` standing for any one (`/v1/users/*/follow`).
        case template(String)
    }

    let match: Match
    /// nil for every method. A route that takes `GET` takes `HEAD` too (RFC 9110 §9.1; the
    /// service answers it as the `GET` without a body).
    let methods: Set<HTTPRequest.Method>?
    let service: ServiceName
    let access: Access
    /// nil: `read` for GET and HEAD, `write` otherwise.
    let rateClass: RateClass?
    let body: BodyKind

    func matches(path: String, method: HTTPRequest.Method) -> Bool {
        if let methods, !methods.contains(method), method != .head || !methods.contains(.get) { return false }
        return matches(path: path)
    }

    /// Whether the path is this route's, whatever the method.
    func matches(path: String) -> Bool {
        switch match {
        case .exact(let exact): return path == exact
        case .prefix(let prefix):
            // Every request runs down the table: no string is made to compare.
            let (path, prefix) = (path.utf8, prefix.utf8)
            guard path.starts(with: prefix) else { return false }
            let end = path.index(path.startIndex, offsetBy: prefix.count)
            return end == path.endIndex || path[end] == UInt8(ascii: "/")
        case .template(let template):
            guard path.utf8.starts(with: template.utf8.prefix { $0 != UInt8(ascii: "*") }) else { return false }
            let segments = path.split(separator: "/", omittingEmptySubsequences: false)
            let pattern = template.split(separator: "/", omittingEmptySubsequences: false)
            return segments.count == pattern.count
                && zip(segments, pattern).allSatisfy { $1 == "*" ? !$0.isEmpty : $0 == $1 }
        }
    }

    func rateClass(for method: HTTPRequest.Method) -> RateClass {
        rateClass ?? ((method == .get || method == .head) ? .read : .write)
    }
}

/// Every public path and the service that owns it, in one place. Anything not listed is a
/// 404 at the gateway and never reaches a service (internal routes such as
/// `/internal/events` and services' own `/health/*` are unreachable from outside).
enum RouteTable {
    /// The routes anyone may call without a token: sign-up, sign-in (email, PIN, guest),
    /// refresh, session verify, the public keys and the gateway's own health and API
    /// description.
    static let publicRoutes: [GatewayRoute] = [
        GatewayRoute(
            match: .exact("/v1/auth/register"), methods: [.post], service: .auth, access: .public, rateClass: .auth,
            body: .json),
        GatewayRoute(
            match: .exact("/v1/auth/login"), methods: [.post], service: .auth, access: .public, rateClass: .auth,
            body: .json),
        GatewayRoute(
            match: .exact("/v1/auth/refresh"), methods: [.post], service: .auth, access: .public, rateClass: .auth,
            body: .json),
        GatewayRoute(
            match: .exact("/v1/auth/apple"), methods: [.post], service: .auth, access: .public, rateClass: .auth,
            body: .json),
        // A banned user cannot sign in; they appeal with their email and password.
        GatewayRoute(
            match: .exact("/v1/auth/ban-appeal"), methods: [.post], service: .auth, access: .public,
            rateClass: .auth, body: .json),
        GatewayRoute(
            match: .exact("/v1/webhooks/revenuecat"), methods: [.post], service: .auth, access: .public,
            rateClass: .write, body: .json),
        // An app checks a username as it is typed, before the account exists.
        GatewayRoute(
            match: .prefix("/v1/auth/check-username"), methods: [.get], service: .auth, access: .public,
            rateClass: .auth, body: .json),
        GatewayRoute(
            match: .exact("/v1/auth/guest"), methods: [.post], service: .auth, access: .public, rateClass: .auth,
            body: .json),
        // Mail asked for by address ("forgot password", a sign-in code): the mail class.
        GatewayRoute(
            match: .exact("/v1/auth/password/forgot"), methods: [.post], service: .auth, access: .public,
            rateClass: .mail, body: .json),
        GatewayRoute(
            match: .exact("/v1/auth/email/code"), methods: [.post], service: .auth, access: .public,
            rateClass: .mail, body: .json),
        GatewayRoute(
            match: .exact("/v1/auth/email/code/verify"), methods: [.post], service: .auth, access: .public,
            rateClass: .auth, body: .json),
        // The mailed links' pages (GET) and what their buttons or an app post (POST).
        GatewayRoute(
            match: .exact("/v1/auth/password/reset"), methods: [.get, .head, .post], service: .auth,
            access: .public, rateClass: .auth, body: .json),
        GatewayRoute(
            match: .exact("/v1/auth/email/verify"), methods: [.get, .head, .post], service: .auth, access: .public,
            rateClass: .auth, body: .json),
        GatewayRoute(
            match: .exact("/v1/auth/email/confirm"), methods: [.get, .head, .post], service: .auth, access: .public,
            rateClass: .auth, body: .json),
        GatewayRoute(
            match: .exact("/v1/auth/email/undo"), methods: [.get, .head, .post], service: .auth, access: .public,
            rateClass: .auth, body: .json),
        GatewayRoute(
            match: .exact("/v1/sessions/login"), methods: [.post], service: .auth, access: .public, rateClass: .auth,
            body: .json),
        GatewayRoute(
            match: .exact("/v1/sessions/verify"), methods: [.get], service: .auth, access: .public, rateClass: .auth,
            body: .json),
        // Presigned media URLs carry their own signature instead of a token.
        GatewayRoute(
            match: .prefix("/v1/media/presigned"), methods: [.get, .head, .put], service: .media, access: .public,
            rateClass: nil, body: .upload),
        GatewayRoute(
            match: .prefix("/v1/evidence/presigned"), methods: [.put], service: .media, access: .public,
            rateClass: nil, body: .upload),
        // The URLs in media views: signed, fetched by image loaders that send no token.
        GatewayRoute(
            match: .prefix("/v1/media/views"), methods: [.get, .head], service: .media, access: .public,
            rateClass: .read, body: .json),
        GatewayRoute(
            match: .exact("/.well-known/jwks.json"), methods: [.get, .head], service: .auth, access: .public,
            rateClass: .read, body: .json),
        // The moderation console: HTML pages behind its own cookie session (moderation checks
        // it); signing in is throttled as every sign-in is.
        GatewayRoute(
            match: .exact("/console/sign-in"), methods: [.post], service: .moderation, access: .public,
            rateClass: .auth, body: .json),
        GatewayRoute(
            match: .prefix("/console"), methods: [.get, .head, .post], service: .moderation, access: .public,
            rateClass: nil, body: .json),
    ]

    /// Public API paths outside `/v1` and `/.well-known`: a seed app's own spelling of a route.
    static let unversionedPaths: Set<String> = ["/evidence/finalize"]

    /// Paths served by the gateway itself (never forwarded), all public.
    static let gatewayPaths: Set<String> = [
        "/health", "/health/live", "/health/ready", "/openapi.yaml", "/metrics",
        "/.well-known/apple-app-site-association", "/.well-known/assetlinks.json",
    ]

    /// Ownership of the authenticated API, by path prefix.
    static let ownedPrefixes: [GatewayRoute] = [
        authenticated("/v1/auth", .auth),
        // What alerts keeps per user (StreakSnap's spelling of a push device, notification
        // preferences); the rest of /v1/me is auth's.
        authenticated("/v1/me/push-token", .alerts),
        authenticated("/v1/me/notification-preferences", .alerts),
        // What mails a code to the user's address (or a new one): the mail class.
        GatewayRoute(
            match: .exact("/v1/me/email/verification"), methods: [.post], service: .auth, access: .authenticated,
            rateClass: .mail, body: .json),
        GatewayRoute(
            match: .exact("/v1/me/email"), methods: [.post], service: .auth, access: .authenticated,
            rateClass: .mail, body: .json),
        authenticated("/v1/me", .auth),
        // Searching people has the search budget.
        GatewayRoute(
            match: .exact("/v1/users/search"), methods: [.get], service: .auth, access: .authenticated,
            rateClass: .search, body: .json),
        // The follow graph and a user's posts are feed's; the rest of /v1/users (profiles) is auth's.
        authenticated(template: "/v1/users/*/follow", .feed),
        authenticated(template: "/v1/users/*/followers", .feed),
        authenticated(template: "/v1/users/*/following", .feed),
        authenticated(template: "/v1/users/*/posts", .feed),
        authenticated("/v1/users", .auth),
        authenticated("/v1/admin", .auth),
        authenticated("/v1/tenants", .auth),
        authenticated("/v1/media", .media, body: .upload, rateClass: nil),
        // tus: PATCH and HEAD come many per upload; media counts uploads per user itself.
        authenticated("/v1/uploads", .media, body: .upload, rateClass: nil),
        authenticated("/v1/resumable-uploads", .media, body: .resumableUpload, rateClass: nil),
        authenticated("/v1/evidence", .media, body: .upload, rateClass: nil),
        // Transrify finalizes evidence at the path its seed names, without `/v1`.
        GatewayRoute(
            match: .exact("/evidence/finalize"), methods: [.post], service: .media, access: .authenticated,
            rateClass: nil, body: .json),
        authenticated("/v1/posts", .feed),
        authenticated("/v1/feed", .feed),
        authenticated("/v1/spots", .feed),
        authenticated("/v1/challenges", .feed),
        GatewayRoute(
            match: .exact("/v1/friends/search"), methods: [.get], service: .streak, access: .authenticated,
            rateClass: .search, body: .json),
        authenticated("/v1/friends", .streak),
        GatewayRoute(
            match: .exact("/v1/search/posts"), methods: [.get], service: .feed, access: .authenticated,
            rateClass: .search, body: .json),
        authenticated("/v1/streaks", .streak),
        authenticated("/v1/snaps", .streak),
        authenticated("/v1/prompts", .streak),
        authenticated("/v1/recovery-tokens", .streak),
        authenticated("/v1/share-cards", .streak),
        authenticated("/v1/notifications", .alerts),
        authenticated("/v1/devices", .alerts),
        authenticated("/v1/alerts", .alerts),
        authenticated("/v1/messages", .alerts),
        authenticated("/v1/reports", .moderation),
        authenticated("/v1/blocks", .moderation),
        authenticated("/v1/mutes", .moderation),
        authenticated("/v1/moderation", .moderation),
    ]

    static let all: [GatewayRoute] = publicRoutes + ownedPrefixes

    /// The route for a request, or nil.
    static func route(path: String, method: HTTPRequest.Method) -> GatewayRoute? {
        all.first { $0.matches(path: path, method: method) }
    }

    /// The methods routes take at `path` when none takes the method asked (a 405's `Allow`; a
    /// route open to every method offers every method the gateway forwards); empty when no
    /// route has the path.
    static func methods(at path: String) -> Set<HTTPRequest.Method> {
        var methods = all.filter { $0.matches(path: path) }.reduce(into: Set<HTTPRequest.Method>()) {
            $0.formUnion($1.methods ?? forwarded)
        }
        if methods.contains(.get) { methods.insert(.head) }
        return methods
    }

    /// 405 `METHOD_NOT_ALLOWED` with `Allow` when routes take `path` with other methods than
    /// `method`; nil when no route has the path.
    static func methodNotAllowed(_ method: HTTPRequest.Method, path: String) -> ServiceError? {
        let allowed = methods(at: path)
        guard !allowed.isEmpty else { return nil }
        let names = allowed.map(\.rawValue).sorted().joined(separator: ", ")
        return ServiceError(
            .methodNotAllowed, "\(method) is not allowed on \(path); use \(names).", headers: [.allow: names])
    }

    /// Every method the gateway forwards: those a route can take, and `TRACE`, which none
    /// does (the owner answers it 405 with `Allow` like any method its path does not take).
    static let forwarded: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .patch, .delete, .options, .trace]

    private static func authenticated(
        _ prefix: String, _ service: ServiceName, body: BodyKind = .json, rateClass: RateClass? = nil
    ) -> GatewayRoute {
        GatewayRoute(
            match: .prefix(prefix), methods: nil, service: service, access: .authenticated, rateClass: rateClass,
            body: body)
    }

    private static func authenticated(template: String, _ service: ServiceName) -> GatewayRoute {
        GatewayRoute(
            match: .template(template), methods: nil, service: service, access: .authenticated, rateClass: nil,
            body: .json)
    }

    /// Whether a path is safe to forward as is: absolute, no empty, `.` or `..` segments, no
    /// encoded slash, dot or backslash that a service could decode into a different route.
    /// One pass over the bytes, as every request asks (`RouteTableTests` checks it against the
    /// rule spelled out with strings).
    static func isCanonical(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            guard bytes.first == UInt8(ascii: "/"), bytes.count <= 2048 else { return false }
            var segment = 1
            for index in 1...bytes.count {
                guard index < bytes.count, bytes[index] != UInt8(ascii: "/") else {
                    // A segment ends: empty (unless last), `.` and `..` name something else.
                    let length = index - segment
                    if length == 0, index < bytes.count { return false }
                    let dots = bytes[segment..<index].allSatisfy { $0 == UInt8(ascii: ".") }
                    if dots, length == 1 || length == 2 { return false }
                    segment = index + 1
                    continue
                }
                switch bytes[index] {
                case UInt8(ascii: "\\"):
                    return false
                case UInt8(ascii: "%") where index + 2 < bytes.count:
                    // An encoded slash, dot, backslash or NUL.
                    let (high, low) = (bytes[index + 1], bytes[index + 2] | 0x20)
                    if high == UInt8(ascii: "2"), low == UInt8(ascii: "f") || low == UInt8(ascii: "e") { return false }
                    if high == UInt8(ascii: "5"), low == UInt8(ascii: "c") { return false }
                    if high == UInt8(ascii: "0"), bytes[index + 2] == UInt8(ascii: "0") { return false }
                default:
                    break
                }
            }
            return true
        }
    }
}
