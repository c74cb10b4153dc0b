import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// What other services' events do to friendships, in the inbox's transaction.
extension StreakStore {
    /// `user.blocked` (after the kit's block mirror took it): the pair's friendship ends as an
    /// unfriending does (``end(_:reason:in:)``) and pending requests between them are declined.
    /// Unblocking leaves a broken streak broken until the two become friends again.
    func blocked(_ event: UserBlocked, at now: Date, in db: Database) throws {
        for var streak in try StreakRecord.all().pair(event.blockerId, event.blockedId).ofFriends().fetchAll(db) {
            try end(&streak, reason: "blocked", in: db)
        }
        try FriendRequestRecord.all().pending(between: event.blockerId, and: event.blockedId).updateAll(
            db, FriendRequestRecord.Columns.status.set(to: FriendRequestStatus.declined),
            FriendRequestRecord.Columns.respondedAt.set(to: now))
    }
}
