import Foundation
import GRDB

/// The key a record's property has for a snake_case column (`author_id` is `authorId`), and
/// the column a property's key is written to: what GRDB's `.convertFromSnakeCase` and
/// `.convertToSnakeCase` give, at a fraction of their cost. GRDB converts every column of every
/// row it decodes, with Foundation's `lowercased()` and `capitalized` and a string for each
/// part (a list of twenty rows of ten columns converts two hundred names), and every key of a
/// record it writes, with Foundation's character sets and a string for each word. A name of
/// ASCII letters and digits in the shapes every Pinhole column and property has is converted
/// here in one pass over its bytes, with no allocation for a name of up to 15 bytes (Swift
/// keeps such a string inline); anything else takes the same steps GRDB's strategies take.
/// Nothing is cached, so threads converting together share no lock.
enum ColumnKeys {
    /// The strategy ``ServiceRow`` decodes with.
    static let strategy = DatabaseColumnDecodingStrategy.custom { Key(stringValue: camelCase($0)) }

    /// The strategy ``ServiceRecord`` encodes with.
    static let encodingStrategy = DatabaseColumnEncodingStrategy.custom { snakeCase($0.stringValue) }

    struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// `column` as GRDB's `.convertFromSnakeCase` converts it: the parts between underscores
    /// joined, the first lowercased and each other capitalized (Foundation's `capitalized`,
    /// which also starts a word after a digit: `sha256_hex2x` is `sha256Hex2X`); underscores
    /// before and after the name kept; a name without an inner underscore kept as it is.
    static func camelCase(_ column: String) -> String {
        let bytes = column.utf8
        guard let first = bytes.first, let last = bytes.last, first != underscore, last != underscore,
            bytes.allSatisfy({ isLowercaseLetter($0) || isDigit($0) || $0 == underscore })
        else { return converted(column) }
        guard bytes.contains(underscore) else { return column }
        return String(
            unsafeUninitializedCapacity: bytes.count,
            initializingUTF8With: { buffer in
                var count = 0
                var laterPart = false
                var afterLetter = false
                for byte in bytes {
                    if byte == underscore {
                        laterPart = true
                        afterLetter = false
                        continue
                    }
                    let letter = isLowercaseLetter(byte)
                    buffer[count] = laterPart && letter && !afterLetter ? byte - 32 : byte
                    count += 1
                    afterLetter = letter
                }
                return count
            })
    }

    /// `key` as GRDB's `.convertToSnakeCase` converts it: split into words before each capital
    /// after the first character that does not follow another, and before the last capital of
    /// a run of them that a lowercase letter follows (`myURLKey` is `my_url_key`), the words
    /// lowercased and joined with underscores. A name of ASCII letters and digits whose every capital after
    /// the first character has a lowercase letter right after it (`displaySha256`: every
    /// record's property, acronyms spelled as words) is one word more at each such capital.
    static func snakeCase(_ key: String) -> String {
        let bytes = key.utf8
        var breaks = 0
        var capitalBefore = false
        for (offset, byte) in bytes.enumerated() {
            let lowercase = isLowercaseLetter(byte)
            if capitalBefore && !lowercase { return snakeConverted(key) }
            capitalBefore = false
            if isUppercaseLetter(byte) {
                guard offset > 0 else { continue }
                breaks += 1
                capitalBefore = true
            } else if !lowercase && !isDigit(byte) {
                return snakeConverted(key)
            }
        }
        guard !capitalBefore else { return snakeConverted(key) }
        guard breaks > 0 || bytes.first.map(isUppercaseLetter) == true else { return key }
        return String(
            unsafeUninitializedCapacity: bytes.count + breaks,
            initializingUTF8With: { buffer in
                var count = 0
                for (offset, byte) in bytes.enumerated() {
                    guard isUppercaseLetter(byte) else {
                        buffer[count] = byte
                        count += 1
                        continue
                    }
                    if offset > 0 {
                        buffer[count] = underscore
                        count += 1
                    }
                    buffer[count] = byte + 32
                    count += 1
                }
                return count
            })
    }

    /// The general case of ``snakeCase(_:)``, word by word as GRDB's strategy finds them.
    private static func snakeConverted(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        var words: [Substring] = []
        var wordStart = key.startIndex
        var searchFrom = key.index(after: wordStart)
        while let capital = key.rangeOfCharacter(from: .uppercaseLetters, range: searchFrom..<key.endIndex)?.lowerBound
        {
            words.append(key[wordStart..<capital])
            guard
                let lower = key.rangeOfCharacter(from: .lowercaseLetters, range: capital..<key.endIndex)?.lowerBound
            else {
                wordStart = capital
                break
            }
            if lower == key.index(after: capital) {
                wordStart = capital
            } else {
                let lastCapital = key.index(before: lower)
                words.append(key[capital..<lastCapital])
                wordStart = lastCapital
            }
            searchFrom = key.index(after: lower)
        }
        words.append(key[wordStart...])
        return words.map { $0.lowercased() }.joined(separator: "_")
    }

    /// The general case, step by step as GRDB's strategy takes it.
    private static func converted(_ column: String) -> String {
        guard let start = column.firstIndex(where: { $0 != "_" }) else { return column }
        var end = column.index(before: column.endIndex)
        while end > start && column[end] == "_" { column.formIndex(before: &end) }
        let name = column[start...end]
        let parts = name.split(separator: "_")
        let joined =
            parts.count == 1
            ? String(name) : ([parts[0].lowercased()] + parts.dropFirst().map { $0.capitalized }).joined()
        return String(column[..<start]) + joined + String(column[column.index(after: end)...])
    }

    private static let underscore = UInt8(ascii: "_")
    private static func isLowercaseLetter(_ byte: UInt8) -> Bool { byte >= 97 && byte <= 122 }
    private static func isUppercaseLetter(_ byte: UInt8) -> Bool { byte >= 65 && byte <= 90 }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
}
