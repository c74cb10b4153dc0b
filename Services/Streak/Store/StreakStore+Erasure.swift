import GRDB
import ServiceKit

extension StreakStore {
    /// Applies `user.deleted`: the user's friend requests, streaks (their friends' streaks
    /// with them end with them, with the snaps and breaks in them), snaps, nudges, recovery
    /// tokens, windows, custom prompts, share cards and member row go; the kit forgets their blocks. A
    /// deadline job left behind finds no streak and ends; their window job is cancelled.
    static func erase(userID: String, jobs: JobQueue, in db: Database) throws {
        try jobs.cancel(SnapWindowJob.kind, key: userID, in: db)
        typealias Requests = FriendRequestRecord.Columns
        try FriendRequestRecord.filter(Requests.fromUserId == userID || Requests.toUserId == userID).deleteAll(db)
        let streaks = try String.fetchAll(db, StreakRecord.all().of(userID).select(StreakRecord.Columns.id))
        try StreakSnapRecord.filter(streaks.contains(StreakSnapRecord.Columns.streakId)).deleteAll(db)
        try StreakBreakRecord.filter(streaks.contains(StreakBreakRecord.Columns.streakId)).deleteAll(db)
        try StreakMilestoneRecord.filter(streaks.contains(StreakMilestoneRecord.Columns.streakId)).deleteAll(db)
        // Their cards, and their friends' cards of streaks with them (the image, which is the
        // friend's media, stays with the friend).
        try ShareCardRecord.filter(
            ShareCardRecord.Columns.userId == userID || streaks.contains(ShareCardRecord.Columns.streakId)
        ).deleteAll(db)
        try SnapWindowRecord.filter(SnapWindowRecord.Columns.userId == userID).deleteAll(db)
        try CustomPromptRecord.filter(CustomPromptRecord.Columns.userId == userID).deleteAll(db)
        try NudgeRecord.filter(NudgeRecord.Columns.fromUserId == userID || NudgeRecord.Columns.toUserId == userID)
            .deleteAll(db)
        try StreakRecord.filter(keys: streaks).deleteAll(db)
        try MemberRecord.deleteOne(db, key: userID)
        try SnapRecord.filter(SnapRecord.Columns.userId == userID).deleteAll(db)
        try RecoveryTokenRecord.filter(RecoveryTokenRecord.Columns.userId == userID).deleteAll(db)
    }
}
