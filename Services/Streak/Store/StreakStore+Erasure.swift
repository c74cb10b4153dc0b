import GRDB
import ServiceKit

extension StreakStore {
    /// Applies `user.deleted`: the user's friend requests, streaks (their friends' streaks
    /// with them end with them, with the snaps and breaks in them), snaps, nudges, recovery
    /// tokens and member row go; the kit forgets their blocks. A deadline job left behind finds no streak and ends.
    static func erase(userID: String, in db: Database) throws {
        typealias Requests = FriendRequestRecord.Columns
        try FriendRequestRecord.filter(Requests.fromUserId == userID || Requests.toUserId == userID).deleteAll(db)
        let streaks = try String.fetchAll(db, StreakRecord.all().of(userID).select(StreakRecord.Columns.id))
        try StreakSnapRecord.filter(streaks.contains(StreakSnapRecord.Columns.streakId)).deleteAll(db)
        try StreakBreakRecord.filter(streaks.contains(StreakBreakRecord.Columns.streakId)).deleteAll(db)
        try NudgeRecord.filter(NudgeRecord.Columns.fromUserId == userID || NudgeRecord.Columns.toUserId == userID)
            .deleteAll(db)
        try StreakRecord.filter(keys: streaks).deleteAll(db)
        try MemberRecord.deleteOne(db, key: userID)
        try SnapRecord.filter(SnapRecord.Columns.userId == userID).deleteAll(db)
        try RecoveryTokenRecord.filter(RecoveryTokenRecord.Columns.userId == userID).deleteAll(db)
    }
}
