import GRDB
import ServiceHTTP
import ServiceStore

extension FeedStore {
    /// Applies `user.deleted`: the user's posts (and the votes on them) and their votes on
    /// other posts (taken back out of those posts' counts) go; the kit forgets their blocks.
    /// Every challenge they took part in goes whole (clips, votes, its job: the other side's
    /// clip stays their media, referenced by nothing); their votes on others' challenges and
    /// their standing go too. The other participant keeps the standing their results earned.
    /// Their spots go; their check-ins and ratings leave other spots' counts. Their follows go
    /// both ways, out of everyone's counts.
    static func erase(userID: String, jobs: JobQueue, outbox: Outbox, in db: Database) throws {
        try db.execute(
            sql:
                "UPDATE post SET upvotes = upvotes - (SELECT COUNT(*) FROM vote WHERE vote.post_id = post.id AND vote.user_id = ?1 AND value > 0), downvotes = downvotes - (SELECT COUNT(*) FROM vote WHERE vote.post_id = post.id AND vote.user_id = ?1 AND value < 0) WHERE id IN (SELECT post_id FROM vote WHERE user_id = ?1)",
            arguments: [userID])
        try VoteRecord.filter(VoteRecord.Columns.userId == userID).deleteAll(db)
        try eraseInteractions(of: userID, in: db)
        try KeywordMuteMirror.erase(userID: userID, in: db)
        try PostRecord.filter(PostRecord.Columns.authorId == userID).deleteAll(db)
        let challenges = ChallengeRecord.all().involving(userID)
        for id in try challenges.select(ChallengeRecord.Columns.id, as: String.self).fetchAll(db) {
            try jobs.cancel(ChallengeDeadline.kind, key: id, in: db)
        }
        try challenges.deleteAll(db)
        try ChallengeVoteRecord.filter(ChallengeVoteRecord.Columns.voterId == userID).deleteAll(db)
        try ChallengeStatsRecord.deleteOne(db, key: userID)
        // Their spots go (challenges there keep their place); their ratings and check-ins
        // leave the counts of others' spots.
        try db.execute(
            sql: "UPDATE challenge SET spot_id = NULL WHERE spot_id IN (SELECT id FROM spot WHERE creator_id = ?)",
            arguments: [userID])
        try SpotRecord.filter(SpotRecord.Columns.creatorId == userID).deleteAll(db)
        try db.execute(
            sql: """
                UPDATE spot SET rating_count = rating_count - 1,
                    rating_sum = rating_sum - (SELECT stars FROM spot_rating r WHERE r.spot_id = spot.id AND r.user_id = ?1)
                WHERE id IN (SELECT spot_id FROM spot_rating WHERE user_id = ?1)
                """, arguments: [userID])
        try db.execute(
            sql: """
                UPDATE spot SET check_in_count = check_in_count
                    - (SELECT COUNT(*) FROM spot_check_in c WHERE c.spot_id = spot.id AND c.user_id = ?1)
                WHERE id IN (SELECT spot_id FROM spot_check_in WHERE user_id = ?1)
                """, arguments: [userID])
        try SpotRatingRecord.filter(SpotRatingRecord.Columns.userId == userID).deleteAll(db)
        try SpotCheckInRecord.filter(SpotCheckInRecord.Columns.userId == userID).deleteAll(db)
        try SpotNoticeRecord.filter(SpotNoticeRecord.Columns.userId == userID).deleteAll(db)
        try eraseFollows(of: userID, outbox: outbox, in: db)
    }
}
