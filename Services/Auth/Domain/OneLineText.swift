import Foundation
import ServiceHTTP

/// A short line of text people type (a display name, a tenant's name), read as the API
/// document describes it: at most `maxLength` Unicode code points (JSON Schema's count) and no
/// line feed, carriage return, vertical tab or form feed (`^[^\n\r\v\f]*$`). Unicode's other
/// line breaks (U+0085, U+2028, U+2029) become spaces so the text stays on one line, and it
/// is trimmed.
public enum OneLineText {
    /// The text as stored, or nil when it is blank; a 400 naming `field` when it is too long
    /// or breaks the line.
    public static func read(_ raw: String, field: String, maxLength: Int) throws -> String? {
        let lineBreaks: Set<Unicode.Scalar> = ["\n", "\r", "\u{0B}", "\u{0C}"]
        guard (1...maxLength).contains(raw.unicodeScalars.count),
            !raw.unicodeScalars.contains(where: lineBreaks.contains)
        else { throw ServiceError.validation("`\(field)` must be 1 to \(maxLength) characters on one line.") }
        let separators: Set<Unicode.Scalar> = ["\u{85}", "\u{2028}", "\u{2029}"]
        let oneLine = String(String.UnicodeScalarView(raw.unicodeScalars.map { separators.contains($0) ? " " : $0 }))
        let text = oneLine.trimmingCharacters(in: blanks)
        return text.isEmpty ? nil : text
    }

    /// What trimming removes: Unicode's space separators and tab, as `\s` counts them in
    /// ECMAScript (with U+FEFF) and in Python (with the separators U+001C to U+001F), so a
    /// name either reading of the document calls blank is blank here.
    static let blanks = CharacterSet.whitespaces.union(CharacterSet(charactersIn: "\u{1C}\u{1D}\u{1E}\u{1F}\u{FEFF}"))
}
