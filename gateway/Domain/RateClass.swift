import ServiceHTTP

/// Rate-limit classes of the route table.
enum RateClass: String, Sendable, CaseIterable {
    /// Sign-up, sign-in and refresh: keyed by client address, tight.
    case auth
    /// GET and HEAD.
    case read
    /// Every other method.
    case write
    /// Starting an upload (20 per hour by default).
    case upload
    /// Routes that send mail (a reset link, a sign-in code, a verification code): keyed like
    /// the others, and tight, so that nobody mails strangers through Pinhole.
    case mail
    /// Searching people (`GET /v1/friends/search`): the user directory, read a page at a time,
    /// on a budget of its own so that it cannot be walked at the read class's pace.
    case search

    /// Whose budget a request is charged to: the user's when signed in, the client address's
    /// when anonymous or a guest (guests mint tokens freely), and always the address's for `auth`.
    func limiterKey(user: AuthenticatedUser?, clientAddress: String) -> String {
        if self != .auth, let user, !user.isGuest { "user:\(user.userID)" } else { "ip:\(clientAddress)" }
    }

    var defaultPolicy: RatePolicy {
        switch self {
        case .auth: RatePolicy(name: rawValue, limit: 20, window: 60)
        case .read: RatePolicy(name: rawValue, limit: 600, window: 60)
        case .write: RatePolicy(name: rawValue, limit: 120, window: 60)
        case .upload: RatePolicy(name: rawValue, limit: 20, window: 3600)
        case .search: RatePolicy(name: rawValue, limit: 60, window: 60)
        case .mail: RatePolicy(name: rawValue, limit: 10, window: 3600)
        }
    }
}
