import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// What streak lists carry beside their ids, from the service's own copies of profiles and
/// media (kept by auth's and media's events): no call to another service per page.
extension StreakStore {
    /// `standings` with each friend as a view.
    func withFriends(_ standings: [StreakStanding], viewer: String, in db: Database) throws -> [StreakStanding] {
        let people = try views.people(standings.map { $0.record.partner(of: viewer) }, in: db)
        return standings.map { standing in
            var standing = standing
            standing.friend = people[standing.record.partner(of: viewer)]
            standing.friend?.relation = PersonRelation(friend: standing.record.isFriendship)
            return standing
        }
    }

    /// `days` with the photo of each snap shown as a view (a friend's only once revealed:
    /// ``days(_:of:viewer:in:)`` leaves out what the reader may not see).
    func withMedia(_ days: [StreakDay], viewer: String, in db: Database) throws -> [StreakDay] {
        let snaps = days.flatMap { [$0.mine, $0.friend].compactMap(\.self) }
        let media = try views.media(snaps.map(\.mediaId), viewer: viewer, in: db)
        return days.map { day in
            var day = day
            if let mine = day.mine { day.mine?.media = media[mine.mediaId] }
            if let friend = day.friend { day.friend?.media = media[friend.mediaId] }
            return day
        }
    }

    /// `requests` with both people as views.
    func withPeople(_ requests: [FriendRequestRecord], in db: Database) throws -> [FriendRequest] {
        let people = try views.people(requests.flatMap { [$0.fromUserId, $0.toUserId] }, in: db)
        return requests.map { record in
            var request = record.contract
            request.from = people[record.fromUserId]
            request.to = people[record.toUserId]
            return request
        }
    }
}
