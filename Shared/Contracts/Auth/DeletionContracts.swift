import Foundation

/// `DELETE /v1/me`: proof that the account holder is present, not just their token.
public struct AccountDeletionRequest: Codable, Sendable {
    /// The account's password (email accounts).
    public var password: String?
    /// A Sign in with Apple identity token issued in the last few minutes (Apple accounts).
    public var appleIdentityToken: String?
    /// The raw nonce the Apple token was requested with.
    public var nonce: String?

    public init(password: String? = nil, appleIdentityToken: String? = nil, nonce: String? = nil) {
        self.password = password
        self.appleIdentityToken = appleIdentityToken
        self.nonce = nonce
    }
}

/// Progress of an account deletion: `GET /v1/me/deletion`, and the answer to `DELETE /v1/me`.
public struct AccountDeletion: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable { case inProgress = "in_progress", completed }

    /// One service's part: whether it has confirmed that the user's data is gone.
    public struct ServiceProgress: Codable, Sendable, Equatable {
        public var service: ServiceName
        public var confirmed: Bool

        public init(service: ServiceName, confirmed: Bool) {
            self.service = service
            self.confirmed = confirmed
        }
    }

    public var id: String
    public var status: Status
    public var requestedAt: Date
    public var completedAt: Date?
    public var services: [ServiceProgress]

    public init(id: String, status: Status, requestedAt: Date, completedAt: Date?, services: [ServiceProgress]) {
        self.id = id
        self.status = status
        self.requestedAt = requestedAt
        self.completedAt = completedAt
        self.services = services
    }
}

/// Event `user.deleted` (auth → every service holding user data): erase everything of this
/// user. A service acknowledges the event only after its erasure committed, so the outbox's
/// acknowledgements are the confirmations `GET /v1/me/deletion` shows.
public struct UserDeleted: DomainEvent, Equatable {
    public static let eventType: EventType = "user.deleted"

    public var userId: String
    public var requestedAt: Date

    public init(userId: String, requestedAt: Date) {
        self.userId = userId
        self.requestedAt = requestedAt
    }
}
