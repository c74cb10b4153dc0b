import Contracts
import Foundation
import GRDB

/// A row of `report`: one per reporter per target.
struct ReportRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "report"

    var id: String
    var reporterID: String
    var targetType: ReportTargetType
    var targetID: String
    var targetOwnerID: String
    var reason: ReportReason
    var details: String?
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id
        case reporterID = "reporter_id"
        case targetType = "target_type"
        case targetID = "target_id"
        case targetOwnerID = "target_owner_id"
        case reason, details
        case createdAt = "created_at"
    }

    var contract: Report {
        Report(
            id: id, targetType: targetType, targetId: targetID, reason: reason, details: details, createdAt: createdAt)
    }
}

/// A row of `block`.
struct BlockRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "block"

    var blockerID: String
    var blockedID: String
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case blockerID = "blocker_id"
        case blockedID = "blocked_id"
        case createdAt = "created_at"
    }

    var contract: Block { Block(userId: blockedID, createdAt: createdAt) }
}

extension ReportTargetType: DatabaseValueConvertible {}
extension ReportReason: DatabaseValueConvertible {}
