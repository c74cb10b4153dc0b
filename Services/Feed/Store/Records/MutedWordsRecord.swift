import Contracts
import Foundation
import GRDB
import ServiceKit

/// A row of `muted_words`: a user's keyword mutes as moderation last published them.
struct MutedWordsRecord: ServiceRecord {
    static let databaseTableName = "muted_words"

    var userId: String
    var revision: Int
    var mutes: [MutedPhrase]

    /// The phrases that still hold at `now`.
    func holding(at now: Date) -> MutedWords {
        MutedWords(mutes.filter { $0.until.map { $0 > now } ?? true }.map(\.phrase))
    }
}
