import Foundation
import ServiceHTTP

/// Keyword mutes as every service applies them: a phrase mutes a text when its words appear in
/// the text in order, side by side, as whole words, whatever the letter case and accents
/// ("cafe" mutes "Café!", not "cafeteria"). Words are runs of letters and digits; everything
/// else (spaces, punctuation, `#`, `@`) separates them.
public struct MutedWords: Sendable, Equatable {
    /// Each phrase as its folded words.
    public let phrases: [[String]]

    public init(_ phrases: [String]) {
        self.phrases = phrases.map(Self.words).filter { !$0.isEmpty }
    }

    /// Whether nothing is muted.
    public var isEmpty: Bool { phrases.isEmpty }

    /// The folded words of `text`: lowercase, without diacritics, in order.
    public static func words(_ text: String) -> [String] {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// A phrase as stored and compared: its folded words joined by one space ("" when it has none).
    public static func key(_ phrase: String) -> String {
        words(phrase).joined(separator: " ")
    }

    /// Whether any phrase appears in `text`.
    public func matches(_ text: String) -> Bool {
        guard !phrases.isEmpty, !text.isEmpty else { return false }
        let words = Self.words(text)
        return phrases.contains { phrase in
            guard phrase.count <= words.count else { return false }
            return (0...(words.count - phrase.count)).contains { start in
                words[start..<(start + phrase.count)].elementsEqual(phrase)
            }
        }
    }
}
