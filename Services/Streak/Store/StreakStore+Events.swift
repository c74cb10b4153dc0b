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

    /// `user.suspended`, `user.banned`: a moderator's restriction breaks every streak the user
    /// has a count in, at once and with no recovery (StreakSnap: "suspension breaks all the
    /// user's streaks"); both are told (`streak.broken`). The friendships stay: a day both
    /// complete after the suspension starts a new count. A reinstatement restores nothing.
    func restricted(_ user: String, _ reason: StreakProgress.Forfeit, at now: Date, in db: Database) throws {
        for var streak in try StreakRecord.all().of(user).active().ofFriends().fetchAll(db) {
            let pair = try Self.pair(of: streak, in: db)
            var progress = streak.progress
            var effects = try progress.settle(at: now, pair: pair) {
                try StreakSnapRecord.senders(in: streak.id, on: $0, in: db)
            }
            effects += progress.forfeit(reason, by: user, on: LocalDay(now, in: pair.zone(of: user)))
            try commit(&streak, progress, effects: effects, pair: pair, at: now, in: db)
        }
    }
}
