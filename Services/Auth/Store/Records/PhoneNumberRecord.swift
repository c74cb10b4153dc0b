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
