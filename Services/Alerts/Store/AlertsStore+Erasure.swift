import GRDB
import ServiceHTTP
import ServiceStore

extension AlertsStore {
    /// Applies `user.deleted`: the user's notifications, notifications to others that name
    /// them (a friend request they sent, say), duress alerts they raised, acknowledged or
    /// located, their last position, their devices and preferences go, and so do
    /// the messages they sent and their side of their conversations.
    static func erase(userID: String, in db: Database) throws {
        try db.execute(
            sql: "DELETE FROM notification WHERE user_id = ?1 OR instr(data, ?2) > 0",
            arguments: [userID, "\"\(userID)\""])
        try DuressAlertRecord.filter(DuressAlertRecord.Columns.userId == userID).deleteAll(db)
        try DuressSessionRecord.filter(DuressSessionRecord.Columns.userId == userID).deleteAll(db)
        try DuressAcknowledgementRecord.filter(DuressAcknowledgementRecord.Columns.userId == userID).deleteAll(db)
        try ResponderPositionRecord.deleteOne(db, key: userID)
        try DeviceRecord.all().of(userID).deleteAll(db)
        try NotificationPreferenceRecord.all().of(userID).deleteAll(db)
        try QuietHoursRecord.deleteOne(db, key: userID)
        try KeywordMuteMirror.erase(userID: userID, in: db)
        try eraseMessages(of: userID, in: db)
    }
}
