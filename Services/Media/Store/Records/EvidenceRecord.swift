import Contracts
import Foundation
import GRDB
import ServiceKit

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

    enum Columns: String, ColumnExpression {
        case id, key, kind, size, sha256
        case tenantId = "tenant_id"
        case ownerId = "owner_id"
        case incidentId = "incident_id"
        case contentType = "content_type"
        case maxBytes = "max_bytes"
        case createdAt = "created_at"
        case uploadedAt = "uploaded_at"
        case finalizedAt = "finalized_at"
    }

    var evidence: Evidence {
        Evidence(
            id: id, incidentId: incidentId, key: key, kind: kind, contentType: contentType,
            size: finalizedAt == nil ? nil : size, sha256: finalizedAt == nil ? nil : sha256, createdAt: createdAt,
            finalizedAt: finalizedAt)
    }
}

extension EvidenceKind: DatabaseValueConvertible {}
