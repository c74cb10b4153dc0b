import Foundation
import GRDB
import ServiceKit

/// A row of `snap`: one per user per local day.
struct SnapRecord: ServiceRecord {
    static let databaseTableName = "snap"

    var id: String
    var userId: String
    var mediaId: String
    /// The sender's local day, `YYYY-MM-DD`.
    var localDate: String
    /// The IANA zone the day was computed in.
    var timeZone: String
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case localDate = "local_date"
        case createdAt = "created_at"
    }
}

extension DerivableRequest<SnapRecord> {
    /// `user`'s snap of the local day `day` (`YYYY-MM-DD`).
    func by(_ user: String, on day: String) -> Self {
        filter(SnapRecord.Columns.userId == user && SnapRecord.Columns.localDate == day)
    }
}
