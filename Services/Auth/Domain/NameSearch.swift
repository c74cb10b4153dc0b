import Contracts
import Foundation
import ServiceHTTP

/// How people find each other (the "add friend" search): by the start of a username
/// (with or without `@`) or of any word of a display name, ignoring case, accents and width, or
/// by a whole email address. An email is
/// never matched by its prefix, so a search cannot walk the address book; results carry the id
/// and display name only. Tenants' PIN customers are not listed.
enum NameSearch {
    /// What a search asks for.
    enum Query: Equatable {
        case email(String)
        /// Every word must start a word of the username or the name.
        case words([String])
    }

    static let queryLength = 2...100
    /// Words of a name kept for search (a name is at most 50 characters).
    static let maxWords = 12
    static let maxResults = 20

    /// The searchable words of a display name: folded, split at anything that is not a letter
    /// or a digit, without repeats, in order.
    static func words(of name: String) -> [String] {
        var seen: Set<String> = []
        return fold(name).split { !$0.isLetter && !$0.isNumber }.map(String.init)
            .filter { seen.insert($0).inserted }.prefix(maxWords).map { $0 }
    }

    /// Reads `q`: an address (anything with an `@`) or words. Too short, too long or without a
    /// letter or digit is `VALIDATION_FAILED`.
    static func query(_ raw: String?) throws -> Query {
        let text = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard queryLength.contains(text.unicodeScalars.count) else {
            throw ServiceError(
                .validationFailed,
                "`q` must be \(queryLength.lowerBound) to \(queryLength.upperBound) characters: a name or an email address."
            )
        }
        // `@kai`: a username, not an address.
        if text.contains("@"), !text.hasPrefix("@") { return .email(text.lowercased()) }
        let words = words(of: text)
        guard !words.isEmpty else { throw ServiceError(.validationFailed, "`q` must hold a letter or a digit.") }
        return .words(words)
    }

    /// The start of a username `raw` may be (`kai`, `@kai_2`): lowercase, without the `@`; nil
    /// when it holds anything a username cannot.
    static func usernamePrefix(_ raw: String?) -> String? {
        var text = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if text.hasPrefix("@") { text.removeFirst() }
        guard (1...UsernameRules.length.upperBound).contains(text.count),
            text.unicodeScalars.allSatisfy(UsernameRules.allowed)
        else { return nil }
        return text
    }

    /// The FTS5 query for `words` (each already only letters and digits): every one must
    /// start a word of the username or the name.
    static func ftsQuery(_ words: [String]) -> String {
        words.map { "\"\($0)\"*" }.joined(separator: " ")
    }

    /// Whole-word matches (of the name or the username) first, then by name.
    static func rank(_ users: [UserSummary], for words: [String]) -> [UserSummary] {
        func whole(_ user: UserSummary) -> Bool {
            let own = Set(Self.words(of: user.displayName) + Self.words(of: user.username ?? ""))
            return words.allSatisfy(own.contains)
        }
        return users.sorted { left, right in
            let (l, r) = (whole(left), whole(right))
            if l != r { return l }
            let order = fold(left.displayName).compare(fold(right.displayName))
            return order == .orderedSame ? left.id < right.id : order == .orderedAscending
        }
    }

    private static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }
}
