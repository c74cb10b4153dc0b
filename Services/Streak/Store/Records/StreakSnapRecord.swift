import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `streak_snap`: a snap sent into one streak, for the sender's local day. One per
/// user per streak per day; a day of a streak is complete when both members have one that is
/// `ready` (its media processed; a rejected one's rows are deleted).
struct StreakSnapRecord: ServiceRecord {
    static let databaseTableName = "streak_snap"

    var streakId: String
    var userId: String
    /// The sender's local day, `YYYY-MM-DD`.
    var localDate: String
    var snapId: String
    /// Its media is ready, so it counts.
    var ready: Bool
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case streakId = "streak_id"
        case userId = "user_id"
        case localDate = "local_date"
        case snapId = "snap_id"
        case ready
    }

    /// Who has a snap that counts for `day` in `streak`.
    static func senders(in streak: String, on day: LocalDay, in db: Database) throws -> Set<String> {
        // Cached: the deadline job asks this for every streak it moves.
        Set(
            try String.fetchAll(
                db.cachedStatement(
                    sql: "SELECT user_id FROM streak_snap WHERE streak_id = ? AND local_date = ? AND ready = 1"),
                arguments: [streak, day.description]))
    }

    /// `streak`'s snaps for `dates`, each with its snap.
    static func snaps(
        in streak: String, on dates: [String], in db: Database
    ) throws -> [(StreakSnapRecord, SnapRecord)] {
        let rows = try StreakSnapRecord.filter(Columns.streakId == streak && dates.contains(Columns.localDate))
            .fetchAll(db)
        let snaps = try SnapRecord.fetchAll(db, keys: rows.map(\.snapId))
        let byID = Dictionary(uniqueKeysWithValues: snaps.map { ($0.id, $0) })
        return rows.compactMap { row in byID[row.snapId].map { (row, $0) } }
    }

    /// The row as the pair see it.
    func contract(_ snap: SnapRecord) -> StreakSnap {
        StreakSnap(
            id: snapId, userId: userId, mediaId: snap.mediaId, localDate: localDate, caption: snap.caption,
            prompt: snap.prompt, counted: ready, createdAt: createdAt)
    }
}
