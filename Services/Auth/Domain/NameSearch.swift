import Contracts
import Foundation
import ServiceKit

/// How people find each other (StreakSnap's "add friend" search): by the start of a username
/// (with or without `@`) or of any word of a display name, ignoring case, accents and width, or
/// by a whole email address. An email is
/// never matched by its prefix, so a search cannot walk the address book; results carry the id
/// and display name only. PIN customers (Transrify) are not listed.
enum NameSearch {
    /// What a search asks for.
    enum Query: Equatable {
        case email(String)
        /// Every word must start a word of the name; `longest` is looked up by index.
        case words([String])

        var longest: String? {
            guard case .words(let words) = self else { return nil }
            return words.max { $0.count < $1.count }
        }
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
        guard queryLength.contains(text.count) else {
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

    /// Whether a name's words answer `words`: each query word starts one of them.
    static func matches(_ name: String, _ words: [String]) -> Bool {
        let own = Self.words(of: name)
        return words.allSatisfy { word in own.contains { $0.hasPrefix(word) } }
    }

    /// Whole-word matches first, then by name.
    static func rank(_ users: [UserSummary], for words: [String]) -> [UserSummary] {
        func whole(_ user: UserSummary) -> Bool { words.allSatisfy(Self.words(of: user.displayName).contains) }
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
