import Foundation
import ServiceHTTP

/// What a username may be: 3 to 20 characters of `a-z`, `0-9`, `_` and `.`, starting with a
/// letter, without `..` and not ending with `.`; compared case-insensitively (stored as the
/// user typed it, keyed in lowercase); never a reserved word. A user changes theirs at most
/// once per cooldown; a name given up stays held for everyone else for a while, so that nobody
/// can take over a name others still know someone by (and an old name never leads anywhere).
enum UsernameRules {
    static let length = 3...20

    /// Names that would pass for the service, its apps or everyone.
    static let reserved: Set<String> = [
        "admin", "administrator", "root", "system", "support", "help", "security", "staff", "official",
        "moderator", "mod", "mods", "team", "pinhole", "streaksnap", "skatehubba", "agora", "unum", "transrify",
        "api", "www", "app", "me", "settings", "everyone", "here", "null", "undefined", "anonymous", "deleted",
    ]

    /// Why a name cannot be had, as `GET /v1/auth/check-username/{username}` says it.
    enum Refusal: String, Error, Sendable {
        case invalid
        case reserved
        case taken
    }

    /// The lowercase key of `raw`, or the reason it is not a username (`invalid`, `reserved`).
    static func key(_ raw: String) -> Result<String, Refusal> {
        let key = raw.lowercased()
        guard length.contains(key.count), let first = key.unicodeScalars.first, ("a"..."z").contains(first),
            key.unicodeScalars.allSatisfy(allowed), !key.contains(".."), !key.hasSuffix(".")
        else { return .failure(.invalid) }
        return reserved.contains(key) ? .failure(.reserved) : .success(key)
    }

    /// Whether a username (lowercased) may hold `scalar`.
    static func allowed(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "."
    }

    /// The key of `raw`, or 400 `VALIDATION_FAILED` saying what a username may be.
    static func requireKey(_ raw: String) throws -> String {
        switch key(raw) {
        case .success(let key): return key
        case .failure(.reserved): throw ServiceError.validation("`username` \(raw) is reserved.")
        case .failure:
            throw ServiceError.validation(
                "`username` is 3 to 20 letters a-z, digits, `_` or `.`, starting with a letter, without `..` or a final `.`."
            )
        }
    }
}
