import Contracts
import Foundation
import ServiceHTTP

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

    /// A display name as typed (`OneLineText`): nil when it is blank.
    static func displayName(_ raw: String) throws -> String? {
        try OneLineText.read(raw, field: "displayName", maxLength: displayNameLength.upperBound)
    }

    /// The display name of a new account: the one given, or the local part of the email.
    static func displayName(_ raw: String?, email: String) throws -> String {
        try raw.flatMap(displayName) ?? String(email.prefix { $0 != "@" }.prefix(displayNameLength.upperBound))
    }

    /// Device description limits.
    static func validate(_ device: DeviceInfo?) throws {
        guard let device else { return }
        guard (1...32).contains(device.platform.unicodeScalars.count),
            (device.version?.unicodeScalars.count ?? 0) <= 64,
            (device.id?.unicodeScalars.count ?? 0) <= 64
        else {
            throw ServiceError.validation(
                "`device.platform` must be 1 to 32 characters, `device.version` and `device.id` at most 64.")
        }
    }
}
