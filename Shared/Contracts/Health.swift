import Foundation

/// What `/health/ready` answers, and what the gateway's `/health` rolls up.
public struct HealthReport: Codable, Sendable, Equatable {
    /// `ok` when ready, `unavailable` otherwise.
    public var status: HealthStatus
    /// Which executable answered.
    public var service: ServiceName
    /// Individual checks, by name (`database`, `signing-keys`, ...).
    public var checks: [String: HealthStatus]
    /// The release the executable was built from (``PinholeRelease/version``).
    public var version: String

    /// Creates a report.
    public init(
        status: HealthStatus, service: ServiceName, checks: [String: HealthStatus],
        version: String = PinholeRelease.version
    ) {
        self.status = status
        self.service = service
        self.checks = checks
        self.version = version
    }
}

/// The gateway's roll-up of every service's readiness.
public struct StackHealthReport: Codable, Sendable, Equatable {
    /// `ok` only when every service is ready.
    public var status: HealthStatus
    /// Each service's status as the gateway saw it just now.
    public var services: [String: HealthStatus]

    /// Creates a roll-up.
    public init(status: HealthStatus, services: [String: HealthStatus]) {
        self.status = status
        self.services = services
    }
}

/// Whether something is healthy.
public enum HealthStatus: String, Codable, Sendable, Equatable {
    case ok
    case unavailable
}

/// The release every executable of this build belongs to; the API document's `info.version`
/// says the same (a test keeps them equal).
public enum PinholeRelease {
    public static let version = "0.1.0"
}
