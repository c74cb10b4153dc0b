import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `attestation_challenge`: a one-time App Attest challenge auth gave a session;
/// used (or expired) once, it is gone.
struct AttestationChallengeRecord: ServiceRecord {
    static let databaseTableName = "attestation_challenge"

    var challenge: String
    var sessionId: String
    var expiresAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case sessionId = "session_id"
        case expiresAt = "expires_at"
    }
}
