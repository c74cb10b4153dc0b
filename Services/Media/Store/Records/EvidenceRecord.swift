import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `evidence`.
struct EvidenceRecord: ServiceRecord {
    static let databaseTableName = "evidence"

    var id: String
    var tenantId: String
    var ownerId: String
    var incidentId: String
    var key: String
    var kind: EvidenceKind?
    var contentType: String
    var maxBytes: Int
    var size: Int?
    var sha256: String?
    var createdAt: Date
    var uploadedAt: Date?
    var finalizedAt: Date?
    /// The session it was collected in (nil on evidence from before sessions were recorded).
    var sessionId: String?

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case key
        case sessionId = "session_id"
    }

    var evidence: Evidence { evidence(duressIncident: nil) }

    /// The evidence as its readers see it, with auth's duress incident its session was under.
    func evidence(duressIncident: String?) -> Evidence {
        Evidence(
            id: id, incidentId: incidentId, key: key, kind: kind, contentType: contentType,
            size: finalizedAt == nil ? nil : size, sha256: finalizedAt == nil ? nil : sha256, createdAt: createdAt,
            finalizedAt: finalizedAt, duressIncidentId: duressIncident)
    }
}

extension EvidenceKind: DatabaseValueConvertible {}
