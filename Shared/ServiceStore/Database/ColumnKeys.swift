import Foundation
import GRDB

/// The key a record's property has for a snake_case column (`author_id` is `authorId`): what
/// GRDB's `.convertFromSnakeCase` gives, at a fraction of its cost. GRDB converts every column
/// of every row it decodes, with Foundation's `lowercased()` and `capitalized` and a string for
/// each part; a list of twenty rows of ten columns converts two hundred names. A name of
/// lowercase ASCII letters, digits and inner underscores (every column Pinhole has) is
/// converted here in one pass over its bytes, with no allocation for a key of up to 15 bytes
/// (Swift keeps such a string inline); anything else takes the same steps GRDB's strategy
/// takes. Nothing is cached, so threads decoding rows together share no lock.
enum ColumnKeys {
    /// The strategy ``ServiceRow`` decodes with.
    static let strategy = DatabaseColumnDecodingStrategy.custom { Key(stringValue: camelCase($0)) }

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
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
}
