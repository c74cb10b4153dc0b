import Contracts
import Foundation
import Hummingbird
import NIOCore

/// What the kit's middleware needs from a request context; the gateway and the services
/// each have one context type that conforms.
public protocol ServiceRequestContextProtocol: RequestContext where Source == ApplicationRequestContextSource {
    /// The connection the request came on (for HTTP/2, the stream channel).
    var channel: any Channel { get }
    /// Set by ``RequestTracingMiddleware``.
    var requestID: String { get set }
    /// Set by ``AuthenticationMiddleware`` when the request carries a valid access token.
    var user: AuthenticatedUser? { get set }
}

/// The request context of every service route.
public struct ServiceRequestContext: ServiceRequestContextProtocol {
    public var coreContext: CoreRequestContextStorage
    public let channel: any Channel
    public var requestID: String = ""
    public var user: AuthenticatedUser?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    /// JSON bodies decoded by Hummingbird are at most 1 MiB; larger uploads stream.
    public var maxUploadSize: Int { 1 << 20 }
    public var requestDecoder: JSONDecoder { JSONCoding.sharedDecoder }
    public var responseEncoder: JSONEncoder { JSONCoding.sharedEncoder }
}

extension ServiceRequestContextProtocol {
    /// The authenticated user, or `AUTHENTICATION_REQUIRED` when the route was reached
    /// without one (a route group without ``AuthenticationMiddleware``).
    public func requireUser() throws -> AuthenticatedUser {
        guard let user else { throw ServiceError.authenticationRequired }
        return user
    }

    /// The authenticated user, who must have an account (not a guest).
    public func requireMember() throws -> AuthenticatedUser {
        let user = try requireUser()
        guard !user.isGuest else { throw ServiceError.guestReadOnly }
        return user
    }

    /// The authenticated user, who must hold `role` (for tenant roles, in `tenantID`).
    public func require(_ role: Role, tenantID: String? = nil) throws -> AuthenticatedUser {
        let user = try requireMember()
        guard user.has(role, tenantID: tenantID) else { throw ServiceError.forbidden }
        return user
    }
}

extension JSONCoding {
    /// Shared instances for Hummingbird's encode and decode paths and for code that codes
    /// JSON per row (configured once, then only read, which Foundation allows from any thread).
    public static let sharedDecoder = JSONCoding.decoder()
    public static let sharedEncoder = JSONCoding.encoder()
}
