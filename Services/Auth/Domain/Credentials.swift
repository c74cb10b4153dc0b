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

    /// Checks a new password's length (in characters after NFC normalisation).
    static func validateNewPassword(_ password: String) throws {
        let count = password.precomposedStringWithCanonicalMapping.count
        guard passwordLength.contains(count) else {
            throw ServiceError.validation(
                "`password` must be \(passwordLength.lowerBound) to \(passwordLength.upperBound) characters.")
        }
    }

    /// A password presented at sign-in: anything longer than the maximum cannot match, and
    /// is refused before hashing so it cannot be used to burn CPU.
    static func validatePresentedPassword(_ password: String) throws {
        guard !password.isEmpty, password.utf8.count <= passwordLength.upperBound * 4 else {
            throw ServiceError.validation("`password` must be 1 to \(passwordLength.upperBound) characters.")
        }
    }

    /// A display name, defaulting to the local part of the email.
    static func displayName(_ raw: String?, email: String) throws -> String {
        guard let raw else { return String(email.split(separator: "@")[0].prefix(displayNameLength.upperBound)) }
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard displayNameLength.contains(name.count), !name.contains(where: \.isNewline) else {
            throw ServiceError.validation(
                "`displayName` must be \(displayNameLength.lowerBound) to \(displayNameLength.upperBound) characters on one line."
            )
        }
        return name
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
