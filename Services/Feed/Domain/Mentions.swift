/// `@username` mentions in a post's words: a name in the usernames' alphabet (3 to 20 of
/// `a-z`, `0-9`, `_`, `.`, starting with a letter) after an `@` that does not follow a letter,
/// digit or `_` (so an email address mentions nobody). Lowercase, each once, in order, at most
/// ``limit``; a trailing `.` ends the sentence, not the name.
enum Mentions {
    static let limit = 10

    static func names(in text: String) -> [String] {
        var names: [String] = []
        let characters = Array(text)
        var index = 0
        while index < characters.count, names.count < limit {
            defer { index += 1 }
            guard characters[index] == "@" else { continue }
            if index > 0, isNameCharacter(characters[index - 1]) || characters[index - 1] == "@" { continue }
            var end = index + 1
            while end < characters.count, isNameCharacter(characters[end]) || characters[end] == "." { end += 1 }
            var name = String(characters[(index + 1)..<end]).lowercased()
            while name.hasSuffix(".") { name.removeLast() }
            index = end - 1
            guard (3...20).contains(name.count), let first = name.first, first.isASCII, first.isLetter,
                !names.contains(name)
            else { continue }
            names.append(name)
        }
        return names
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "_")
    }
}
