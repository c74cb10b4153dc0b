import Contracts
import Foundation
import GRDB
import ServiceHTTP

/// A row of `muted_words`: a user's keyword mutes as moderation last published them.
public struct MutedWordsRecord: ServiceRecord, Sendable {
    public static let databaseTableName = "muted_words"

    public var userId: String
    public var revision: Int
    public var mutes: [MutedPhrase]

    public init(userId: String, revision: Int, mutes: [MutedPhrase]) {
        self.userId = userId
        self.revision = revision
        self.mutes = mutes
    }

    /// The phrases that still hold at `now`.
    public func holding(at now: Date) -> MutedWords {
        MutedWords(mutes.filter { $0.until.map { $0 > now } ?? true }.map(\.phrase))
    }
}
