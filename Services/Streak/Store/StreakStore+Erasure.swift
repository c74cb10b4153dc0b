import GRDB
import ServiceKit

extension StreakStore {
    /// Applies `user.deleted`: the user's friend requests, streaks (their friends' streaks
    /// with them end with them), snaps and recovery tokens go; the kit forgets their blocks.
    static func erase(userID: String, in db: Database) throws {
        typealias Requests = FriendRequestRecord.Columns
        try FriendRequestRecord.filter(Requests.fromUserId == userID || Requests.toUserId == userID).deleteAll(db)
        try StreakRecord.all().of(userID).deleteAll(db)
        try SnapRecord.filter(SnapRecord.Columns.userId == userID).deleteAll(db)
        try RecoveryTokenRecord.filter(RecoveryTokenRecord.Columns.userId == userID).deleteAll(db)
    }
}
