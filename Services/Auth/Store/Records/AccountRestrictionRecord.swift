import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `account_restriction`: what moderation's actions set on one account, each with
/// the action that set it (so reversing an action lifts only its own restriction).
struct AccountRestrictionRecord: ServiceRecord {
    static let databaseTableName = "account_restriction"

    var userId: String
    var suspendedUntil: Date?
    var suspensionActionId: String?
    var bannedAt: Date?
    var banActionId: String?
    /// The moderator's reason, which a refused sign-in tells.
    var banReason: String?

    /// `userID`'s restrictions, read with a statement the connection keeps (every session check
    /// reads them).
    static func of(_ userID: String, in db: Database) throws -> AccountRestrictionRecord? {
        try fetchOne(
            db.cachedStatement(sql: "SELECT * FROM account_restriction WHERE user_id = ?"), arguments: [userID])
    }

    /// When the suspension ends, if it has not yet.
    func suspension(at now: Date) -> Date? {
        guard let suspendedUntil, suspendedUntil > now else { return nil }
        return suspendedUntil
    }

    /// `ACCOUNT_BANNED`, with the moderator's reason, when moderation banned `userID`.
    static func refuseBanned(_ userID: String, in db: Database) throws {
        guard let restriction = try fetchOne(db, key: userID), restriction.bannedAt != nil else { return }
        throw ServiceError(
            .accountBanned, "This account was banned by a moderator: \(restriction.banReason ?? "no reason given").")
    }
}
