import Contracts
import Foundation
import ServiceKit

/// Validation of what users type when they register and sign in.
enum Credentials {
    /// Passwords: at least 8 characters (NIST SP 800-63B), at most 1024, never truncated.
    static let passwordLength = 8...1024
    static let displayNameLength = 1...50

    /// A trimmed, lowercased email address, or a `VALIDATION_FAILED` error.
    static func normalizedEmail(_ raw: String) throws -> String {
        let email = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64,
            parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            !email.contains(where: { $0.isWhitespace || $0.isNewline })
        else {
            throw ServiceError.validation("`email` must be a valid email address.")
        }
        return email
    }

    /// Checks a new password's length in Unicode code points, as NIST SP 800-63B and the API
    /// document count it (the NFC form is what is hashed).
    static func validateNewPassword(_ password: String) throws {
        guard passwordLength.contains(password.unicodeScalars.count) else {
            throw ServiceError.validation(
                "`password` must be \(passwordLength.lowerBound) to \(passwordLength.upperBound) characters.")
        }
    }

    /// A password presented at sign-in: anything longer than the maximum cannot match, and
    /// is refused before hashing so it cannot be used to burn CPU.
    static func validatePresentedPassword(_ password: String) throws {
        guard (1...passwordLength.upperBound).contains(password.unicodeScalars.count) else {
            throw ServiceError.validation("`password` must be 1 to \(passwordLength.upperBound) characters.")
        }
    }

    /// A display name as typed, trimmed: nil when it is blank, a 400 unless it is 1 to 50
    /// characters (Unicode code points, as the API document counts) without a line feed,
    /// carriage return, vertical tab or form feed. Unicode's other line breaks (U+0085, U+2028,
    /// U+2029) become spaces, so the name stays on one line.
    static func displayName(_ raw: String) throws -> String? {
        let lineBreaks: Set<Unicode.Scalar> = ["\n", "\r", "\u{0B}", "\u{0C}"]
        guard displayNameLength.contains(raw.unicodeScalars.count),
            !raw.unicodeScalars.contains(where: lineBreaks.contains)
        else {
            throw ServiceError.validation(
                "`displayName` must be \(displayNameLength.lowerBound) to \(displayNameLength.upperBound) characters on one line."
            )
        }
        let separators: Set<Unicode.Scalar> = ["\u{85}", "\u{2028}", "\u{2029}"]
        let oneLine = String(String.UnicodeScalarView(raw.unicodeScalars.map { separators.contains($0) ? " " : $0 }))
        let name = oneLine.trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? nil : name
    }

    /// The display name of a new account: the one given, or the local part of the email.
    static func displayName(_ raw: String?, email: String) throws -> String {
        try raw.flatMap(displayName) ?? String(email.prefix { $0 != "@" }.prefix(displayNameLength.upperBound))
    }

    /// Device description limits.
    static func validate(_ device: DeviceInfo?) throws {
        guard let device else { return }
        guard (1...32).contains(device.platform.count), (device.version?.count ?? 0) <= 64,
            (device.id?.count ?? 0) <= 64
        else {
            throw ServiceError.validation(
                "`device.platform` must be 1 to 32 characters, `device.version` and `device.id` at most 64.")
        }
    }
}
