import Contracts
import Foundation
import GRDB
import Hummingbird
import ServiceHTTP
import ServiceStore

/// A row of `session`: one signed-in device. Revoking it ends every token of the session.
struct SessionRecord: ServiceRecord {
    static let databaseTableName = "session"

    var id: String
    var userId: String
    var createdAt: Date
    var lastUsedAt: Date
    var revokedAt: Date?
    var ipAddress: String?
    var userAgent: String?
    var devicePlatform: String?
    var deviceVersion: String?
    /// Opened under duress (or while a duress incident is open). Never shown to the client.
    var limited: Bool = false
    /// The tenant of a PIN customer's session.
    var tenantId: String? = nil
    /// When the session last made a valid App Attest assertion.
    var attestedAt: Date? = nil

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case revokedAt = "revoked_at"
    }

    /// A new session for a sign-in request: where it came from and on what device.
    static func opened(
        id: String, userId: String, at now: Date, request: Request, context: ServiceRequestContext, device: DeviceInfo?
    ) async throws -> SessionRecord {
        SessionRecord(
            id: id, userId: userId, createdAt: now, lastUsedAt: now, revokedAt: nil,
            ipAddress: try await ClientAddress.of(request, context: context),
            userAgent: request.headers[.userAgent].map { String($0.prefix(256)) }, devicePlatform: device?.platform,
            deviceVersion: device?.version)
    }

    func summary(currentSessionID: String) -> SessionSummary {
        SessionSummary(
            id: id, createdAt: createdAt, lastUsedAt: lastUsedAt, ipAddress: ipAddress, userAgent: userAgent,
            device: devicePlatform.map { DeviceInfo(platform: $0, version: deviceVersion) },
            current: id == currentSessionID)
    }
}

extension SessionRecord {
    /// The session `id` unless it ended, read with a statement the connection keeps (see
    /// ``UserRecord/live(id:in:)``): every request auth answers checks its session.
    static func live(id: String, in db: Database) throws -> SessionRecord? {
        try fetchOne(
            db.cachedStatement(sql: "SELECT * FROM session WHERE id = ? AND revoked_at IS NULL"), arguments: [id])
    }
}

extension DerivableRequest<SessionRecord> {
    /// Sessions not ended.
    func live() -> Self { filter(SessionRecord.Columns.revokedAt == nil) }

    /// `user`'s sessions.
    func of(_ user: String) -> Self { filter(SessionRecord.Columns.userId == user) }
}
