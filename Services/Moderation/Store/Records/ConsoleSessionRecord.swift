import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `console_session`: a moderator signed in to the web console. The cookie holds a
/// random token; the row is found by its SHA-256 (a copy of the database signs nobody in). It
/// lasts as long as the auth session it was opened with, at most `expiresAt`.
struct ConsoleSessionRecord: ServiceRecord {
    static let databaseTableName = "console_session"

    var tokenHash: String
    var userId: String
    var authSessionId: String
    /// Every form of the session carries it back (``ConsoleGate``).
    var csrfToken: String
    var createdAt: Date
    var expiresAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case expiresAt = "expires_at"
    }
}
