import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `phone_number`: the phone number a user has verified (one per user).
struct PhoneNumberRecord: ServiceRecord {
    static let databaseTableName = "phone_number"

    var userId: String
    /// E.164.
    var phoneNumber: String
    var verifiedAt: Date
}

extension PhoneNumberRecord {
    /// Whether `userID` has a verified number, read with a statement the connection keeps
    /// (every session check asks).
    static func isVerified(_ userID: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM phone_number WHERE user_id = ?)"),
            arguments: [userID]) ?? false
    }
}
