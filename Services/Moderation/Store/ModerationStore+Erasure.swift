import GRDB
import ServiceHTTP
import ServiceStore

extension ModerationStore {
    /// Applies `user.deleted`: reports the user made, reports about their content (which is
    /// gone with them) and its moderation state, actions against them and their appeals, their
    /// record as a reporter, blocks and mutes either way and their keyword mutes go. The audit
    /// log stays as written (ids, not content: it must show what moderators did).
    static func erase(userID: String, in db: Database) throws {
        try AppealRecord.filter(Column("user_id") == userID).deleteAll(db)
        try ModerationActionRecord.filter(ModerationActionRecord.Columns.userId == userID).deleteAll(db)
        try ReporterTrustRecord.deleteOne(db, key: userID)
        try ModerationTargetRecord.filter(ModerationTargetRecord.Columns.ownerId == userID).deleteAll(db)
        try db.execute(
            sql:
                "DELETE FROM moderation_target WHERE target_id IN (SELECT target_id FROM report WHERE target_owner_id = ?1)",
            arguments: [userID])
        typealias Reports = ReportRecord.Columns
        try ReportRecord.filter(Reports.reporterId == userID || Reports.targetOwnerId == userID).deleteAll(db)
        typealias Blocks = BlockRecord.Columns
        try BlockRecord.filter(Blocks.blockerId == userID || Blocks.blockedId == userID).deleteAll(db)
        typealias Mutes = UserMuteRecord.Columns
        try UserMuteRecord.filter(Mutes.muterId == userID || Mutes.mutedId == userID).deleteAll(db)
        try KeywordMuteRecord.filter(KeywordMuteRecord.Columns.userId == userID).deleteAll(db)
        try KeywordMuteRevisionRecord.deleteOne(db, key: userID)
    }
}
