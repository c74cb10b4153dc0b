import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// The days of a streak as one of the pair sees them: the friend feed and the photo history.
/// A friend's snap of a day is revealed to the reader once the reader has snapped into that
/// streak for the same day (mutual reveal); before that it is only known to exist.
extension StreakStore {
    /// `user`'s streaks with friends, newest first, each with its open day.
    func feed(
        of user: String, after position: TimePosition?, limit: Int, at now: Date
    ) async throws
        -> [(standing: StreakStanding, day: StreakDay)]
    {
        try await database.tracedRead { db in
            let standings = try withFriends(
                try TimePosition.newestFirst(
                    StreakRecord.self,
                    "SELECT * FROM streak WHERE (user_a = ? OR user_b = ?) AND \(StreakRecord.stillFriends)",
                    arguments: [user, user],
                    after: position, limit: limit, in: db
                ).map { try Self.standing(of: $0, viewer: user, at: now, in: db) }, viewer: user, in: db)
            let days = try withMedia(
                try standings.map { try Self.days([$0.day.description], of: $0, viewer: user, in: db)[0] },
                viewer: user, in: db)
            return Array(zip(standings, days))
        }
    }

    /// One of `user`'s streaks (nil: not theirs) and its days with a snap, newest first, before
    /// `before` (a `YYYY-MM-DD`).
    func history(
        of streakID: String, viewer user: String, before: String?, limit: Int, at now: Date
    ) async throws -> (standing: StreakStanding, days: [StreakDay])? {
        try await database.tracedRead { db in
            guard let streak = try StreakRecord.filter(key: streakID).of(user).fetchOne(db) else { return nil }
            let standing = try Self.standing(of: streak, viewer: user, at: now, in: db)
            typealias Columns = StreakSnapRecord.Columns
            var dates = StreakSnapRecord.filter(Columns.streakId == streakID)
            if let before { dates = dates.filter(Columns.localDate < before) }
            let page = try String.fetchAll(
                db,
                dates.select(Columns.localDate).distinct().order(Columns.localDate.desc).limit(limit))
            return (
                try withFriends([standing], viewer: user, in: db)[0],
                try withMedia(try Self.days(page, of: standing, viewer: user, in: db), viewer: user, in: db)
            )
        }
    }

    /// `dates` of a streak as `viewer` sees them.
    static func days(
        _ dates: [String], of standing: StreakStanding, viewer: String, in db: Database
    ) throws -> [StreakDay] {
        let snaps = try StreakSnapRecord.snaps(in: standing.record.id, on: dates, in: db)
        let friend = standing.record.partner(of: viewer)
        return dates.map { date in
            let mine = snaps.first { $0.0.userId == viewer && $0.0.localDate == date }
            let theirs = snaps.first { $0.0.userId == friend && $0.0.localDate == date }
            let state: FriendSnapState =
                switch (mine, theirs) {
                case (_, .some(let snap)) where snap.1.hiddenAt != nil: .withheld
                case (.some, .some): .revealed
                case (.none, .some): .hidden
                case (_, .none): date >= standing.day.description ? .waiting : .missed
                }
            return StreakDay(
                date: date, mine: mine.map { $0.0.contract($0.1) },
                friend: state == .revealed ? theirs.map { $0.0.contract($0.1) } : nil, friendState: state)
        }
    }
}
