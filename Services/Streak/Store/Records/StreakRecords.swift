import Contracts
import Foundation
import GRDB

/// A row of `friend_request`.
struct FriendRequestRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "friend_request"

    var id: String
    var fromUserID: String
    var toUserID: String
    var status: FriendRequestStatus
    var createdAt: Date
    var respondedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id
        case fromUserID = "from_user_id"
        case toUserID = "to_user_id"
        case status
        case createdAt = "created_at"
        case respondedAt = "responded_at"
    }

    var contract: FriendRequest {
        FriendRequest(
            id: id, fromUserId: fromUserID, toUserId: toUserID, status: status, createdAt: createdAt,
            respondedAt: respondedAt)
    }
}

/// A row of `streak`: one per pair of friends, `user_a < user_b`.
struct StreakRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "streak"

    var id: String
    var userA: String
    var userB: String
    var count: Int
    var longestCount: Int
    var lastCompletedDate: String?
    var status: StreakStatus
    var brokenReason: String?
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id
        case userA = "user_a"
        case userB = "user_b"
        case count
        case longestCount = "longest_count"
        case lastCompletedDate = "last_completed_date"
        case status
        case brokenReason = "broken_reason"
        case createdAt = "created_at"
    }

    /// The pair in stored order.
    static func pair(_ one: String, _ other: String) -> (String, String) {
        one < other ? (one, other) : (other, one)
    }

    func partner(of user: String) -> String { user == userA ? userB : userA }

    /// The streak as `viewer` sees it on `today` (their local day): a streak whose last
    /// completed day is before yesterday has lapsed, so its count is 0.
    func contract(viewer: String, today: LocalDay) -> Streak {
        let lapsed = lastCompletedDate.flatMap(LocalDay.init).map { $0 < today.previous } ?? false
        let broken = status == .broken || lapsed
        return Streak(
            id: id, friendId: partner(of: viewer), count: broken ? 0 : count, longestCount: longestCount,
            lastCompletedDate: lastCompletedDate, status: broken ? .broken : .active, createdAt: createdAt)
    }
}

/// A row of `snap`: one per user per local day.
struct SnapRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "snap"

    var id: String
    var userID: String
    var mediaID: String
    var localDate: String
    var timeZone: String
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id
        case userID = "user_id"
        case mediaID = "media_id"
        case localDate = "local_date"
        case timeZone = "time_zone"
        case createdAt = "created_at"
    }
}

extension FriendRequestStatus: DatabaseValueConvertible {}
extension StreakStatus: DatabaseValueConvertible {}
