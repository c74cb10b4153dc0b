/// The seven executables of Pinhole plus the operator CLI, as they name themselves in
/// certificates, logs, metrics and events.
public enum ServiceName: String, Codable, Sendable, CaseIterable, Hashable {
    case auth
    case media
    case feed
    case streak
    case alerts
    case moderation
    case gateway
    case pinhole

    /// The six domain services, in start order (auth first: everyone else needs its keys).
    public static let services: [ServiceName] = [.auth, .media, .feed, .streak, .alerts, .moderation]

    /// Everything `pinhole up` starts: the six services, then the gateway.
    public static let executables: [ServiceName] = services + [.gateway]

    /// The port each executable listens on unless configured otherwise.
    public var defaultPort: Int {
        switch self {
        case .gateway: 8080
        case .auth: 8101
        case .media: 8102
        case .feed: 8103
        case .streak: 8104
        case .alerts: 8105
        case .moderation: 8106
        case .pinhole: 0
        }
    }
}
