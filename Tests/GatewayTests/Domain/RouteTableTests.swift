import PropertyBased
import ServiceHTTP
import Testing

@testable import Gateway

@Suite struct RouteTableTests {
    @Test func publicRoutesAreExactlySignUpSignInRefreshVerifyAndKeys() {
        let paths = RouteTable.publicRoutes.map { route -> String in
            switch route.match {
            case .exact(let path): return path
            case .prefix(let prefix): return prefix + "/*"
            case .template(let template): return template
            }
        }
        #expect(
            Set(paths) == [
                "/v1/auth/register", "/v1/auth/login", "/v1/auth/refresh", "/v1/auth/guest", "/v1/auth/apple",
                "/v1/auth/ban-appeal", "/v1/sessions/login",
                "/v1/sessions/verify", "/v1/webhooks/revenuecat", "/v1/media/presigned/*", "/v1/evidence/presigned/*",
                "/v1/media/views/*",
                "/.well-known/jwks.json", "/v1/auth/check-username/*", "/console/sign-in", "/console/*",
                "/v1/auth/password/forgot", "/v1/auth/password/reset", "/v1/auth/email/verify",
                "/v1/auth/email/confirm", "/v1/auth/email/undo", "/v1/auth/email/code", "/v1/auth/email/code/verify",
            ])
        // What sends mail to an address is in the mail class; what takes a mailed token, auth's.
        #expect(RouteTable.route(path: "/v1/auth/password/forgot", method: .post)?.rateClass(for: .post) == .mail)
        #expect(RouteTable.route(path: "/v1/me/email", method: .post)?.rateClass(for: .post) == .mail)
        #expect(RouteTable.route(path: "/v1/me/email/confirm", method: .post)?.rateClass(for: .post) == .write)
        #expect(RouteTable.route(path: "/v1/auth/password/reset", method: .get)?.rateClass(for: .get) == .auth)
        // The console's sign-in is throttled as sign-ins are; its pages are moderation's.
        #expect(RouteTable.route(path: "/console/sign-in", method: .post)?.rateClass(for: .post) == .auth)
        #expect(RouteTable.route(path: "/console/queue", method: .get)?.service == .moderation)
        #expect(RouteTable.route(path: "/console/queue", method: .delete) == nil)
        #expect(RouteTable.route(path: "/v1/auth/check-username/kai", method: .get)?.access == .public)
        #expect(RouteTable.route(path: "/v1/sessions/verify", method: .post) == nil)
        #expect(RouteTable.route(path: "/v1/admin/tenants", method: .post)?.access == .authenticated)
        #expect(RouteTable.route(path: "/v1/tenants/x/customers", method: .post)?.service == .auth)
        #expect(RouteTable.route(path: "/v1/auth/login", method: .post)?.access == .public)
        #expect(RouteTable.route(path: "/v1/auth/login", method: .get)?.access == .authenticated)
        #expect(RouteTable.route(path: "/v1/auth/logout", method: .post)?.access == .authenticated)
    }

    @Test func friendSearchHasItsOwnRateClass() {
        #expect(RouteTable.route(path: "/v1/friends/search", method: .get)?.rateClass(for: .get) == .search)
        #expect(RouteTable.route(path: "/v1/friends/search", method: .get)?.service == .streak)
        #expect(RouteTable.route(path: "/v1/friends", method: .get)?.rateClass(for: .get) == .read)
        #expect(RouteTable.route(path: "/v1/friends/search/x", method: .get)?.rateClass(for: .get) == .read)
        for (path, service) in [("/v1/users/search", ServiceName.auth), ("/v1/search/posts", .feed)] {
            #expect(RouteTable.route(path: path, method: .get)?.rateClass(for: .get) == .search)
            #expect(RouteTable.route(path: path, method: .get)?.service == service)
        }
    }

    @Test func prefixesMatchOnSegmentBoundaries() {
        #expect(RouteTable.route(path: "/v1/me", method: .get)?.service == .auth)
        #expect(RouteTable.route(path: "/v1/me/deletion", method: .get)?.service == .auth)
        #expect(RouteTable.route(path: "/v1/meadow", method: .get) == nil)
        #expect(RouteTable.route(path: "/v1/posts/abc/votes", method: .put)?.service == .feed)
        #expect(RouteTable.route(path: "/internal/events", method: .post) == nil)
        #expect(RouteTable.route(path: "/health/ready", method: .get) == nil)
    }

    @Test func templatesMatchOneSegmentInPlaceOfTheirStar() {
        #expect(RouteTable.route(path: "/v1/users/u-1/follow", method: .put)?.service == .feed)
        #expect(RouteTable.route(path: "/v1/users/u-1/followers", method: .get)?.service == .feed)
        #expect(RouteTable.route(path: "/v1/users/u-1/following", method: .get)?.service == .feed)
        #expect(RouteTable.route(path: "/v1/users/u-1/posts", method: .get)?.service == .feed)
        // Anything else under /v1/users stays auth's: a profile, a longer path, an empty segment.
        #expect(RouteTable.route(path: "/v1/users/u-1", method: .get)?.service == .auth)
        #expect(RouteTable.route(path: "/v1/users/by-username/kai", method: .get)?.service == .auth)
        #expect(RouteTable.route(path: "/v1/users/u-1/follow/x", method: .get)?.service == .auth)
        #expect(RouteTable.route(path: "/v1/users//follow", method: .get)?.service == .auth)
        #expect(RouteTable.route(path: "/v1/users/u-1/follow", method: .put)?.access == .authenticated)
    }

    @Test(arguments: [
        "/v1/me/../internal/events", "/v1/./me", "/v1//me", "/v1/me%2F..%2Finternal", "/v1/%2e%2e/x", "v1/me",
        "/v1/me\\..", "/v1/me/..", "/v1/me%00",
    ])
    func nonCanonicalPathsAreRefused(_ path: String) {
        #expect(!RouteTable.isCanonical(path))
    }

    @Test(arguments: ["/v1/me", "/v1/posts/p-1/votes", "/v1/me/", "/.well-known/jwks.json"])
    func canonicalPathsPass(_ path: String) {
        #expect(RouteTable.isCanonical(path))
    }

    /// The byte scan agrees with the rule spelled out with strings, on paths made of the pieces
    /// that matter (slashes, dots, escapes, a backslash, NUL, letters).
    @Test func theCanonicalCheckIsTheRuleAsWritten() async {
        let pieces = ["/", "/", ".", "..", "%2f", "%2F", "%2e", "%5C", "%5", "%00", "%0", "%", "\\", "v1", "me", "a"]
        await propertyCheck(count: 3000, input: Gen.element(of: pieces).array(of: 0...7)) { parts in
            let path = parts.compactMap { $0 }.joined()
            #expect(RouteTable.isCanonical(path) == Self.canonicalAsWritten(path), "\(path)")
        }
    }

    static func canonicalAsWritten(_ path: String) -> Bool {
        guard path.hasPrefix("/"), path.utf8.count <= 2048 else { return false }
        let lowered = path.lowercased()
        for encoded in ["%2f", "%2e", "%5c", "\\", "%00"] where lowered.contains(encoded) { return false }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        return !segments.dropLast().contains { $0.isEmpty || $0 == "." || $0 == ".." }
            && segments.last != "." && segments.last != ".."
    }
}
