import Contracts
import Foundation
import GRDB
import ServiceKit

/// A row of `moderation_target`: how many distinct users reported an object, and when it was
/// hidden for it.
struct ModerationTargetRecord: ServiceRecord {
    static let databaseTableName = "moderation_target"

    var targetType: ReportTargetType
    var targetId: String
    var reportCount: Int
    var hiddenAt: Date?
}
