import Contracts
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `profile_count`: one user's followers, following and posts, changed in the
/// transaction of each follow, unfollow and post; `revision` grows with every change.
struct ProfileCountRecord: ServiceRecord {
    static let databaseTableName = "profile_count"

    var userId: String
    var followers = 0
    var following = 0
    var posts = 0
    var revision = 0

    var counts: ProfileCounts { ProfileCounts(followers: followers, following: following, posts: posts) }
}
