import GRDB
import ServiceHTTP
import ServiceStore

extension StreakStore {
    /// Applies `user.deleted`: the user's friend requests, streaks (their friends' streaks
    /// with them end with them, with the snaps and breaks in them), snaps, nudges, recovery
    /// tokens, windows, custom prompts, share cards and member row go; the kit forgets their blocks. A
    /// deadline job left behind finds no streak and ends; their window job is cancelled. Their
    /// friends' cards of streaks with them bear their name: media withdraws those images
    /// (`media.withdrawn`, one event per friend).
    static func erase(userID: String, jobs: JobQueue, outbox: Outbox, in db: Database) throws {
        try jobs.cancel(SnapWindowJob.kind, key: userID, in: db)
        typealias Requests = FriendRequestRecord.Columns
        try FriendRequestRecord.filter(Requests.fromUserId == userID || Requests.toUserId == userID).deleteAll(db)
        let streaks = try String.fetchAll(db, StreakRecord.all().of(userID).select(StreakRecord.Columns.id))
        try StreakSnapRecord.filter(streaks.contains(StreakSnapRecord.Columns.streakId)).deleteAll(db)
        try StreakBreakRecord.filter(streaks.contains(StreakBreakRecord.Columns.streakId)).deleteAll(db)
        try StreakMilestoneRecord.filter(streaks.contains(StreakMilestoneRecord.Columns.streakId)).deleteAll(db)
        // Their cards, and their friends' cards of streaks with them (whose images, the
        // friends' media, media deletes).
        let cards = ShareCardRecord.filter(
            ShareCardRecord.Columns.userId == userID || streaks.contains(ShareCardRecord.Columns.streakId))
        let friendsCards = Dictionary(grouping: try cards.fetchAll(db).filter { $0.userId != userID }, by: \.userId)
        for (friend, cards) in friendsCards.sorted(by: { $0.key < $1.key }) {
            try outbox.enqueue(MediaWithdrawn(ownerId: friend, mediaIds: cards.map(\.mediaId).sorted()), in: db)
        }
        try cards.deleteAll(db)
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
