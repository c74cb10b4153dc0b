import Crypto
import Foundation
import ServiceHTTP

/// What a mailed code or link is for.
enum EmailPurpose: String, Codable, Sendable {
    /// Proving the account's address (at registration, or asked again).
    case verify
    /// A forgotten password (link only).
    case reset
    /// Proving a new address before it replaces the old one.
    case change
    /// The old address taking a change back (link only, a week).
    case undo
    /// Signing in with a mailed code instead of a password.
    case signIn = "sign_in"
}

/// The one-time codes and links mailed to users: made from the service's entropy, stored as
/// digests only, compared in constant time.
///
/// A code is six digits, kept as an HMAC (with the service's secret pepper) of the challenge id
/// and the code, so a stolen database does not reveal it and a million guesses per row cannot
/// be run offline. A link carries 32 random bytes (base64url); its SHA-256 is stored, and the
/// link is looked up by it.
struct EmailCodes: Sendable {
    let pepper: SymmetricKey
    let entropy: any Entropy

    /// A fresh six-digit code.
    func newCode() -> String {
        let value = entropy.bytes(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 1_000_000
        return String(format: "%06u", value)
    }

    /// A fresh link token and the digest to store.
    func newLinkToken() -> (token: String, digest: String) {
        let token = Base64URL.encode(entropy.bytes(32))
        return (token, Self.linkDigest(token))
    }

    func codeDigest(_ code: String, challengeID: String) -> String {
        Hex.encode(HMAC<SHA256>.authenticationCode(for: Data("\(challengeID)\u{0}\(code)".utf8), using: pepper))
    }

    /// Whether `code` is the one `challenge` was mailed with (constant time).
    func matches(_ code: String, _ challenge: EmailChallengeRecord) -> Bool {
        guard let stored = challenge.codeHash else { return false }
        return Self.constantTimeEqual(codeDigest(code, challengeID: challenge.id), stored)
    }

    static func linkDigest(_ token: String) -> String {
        Hex.encode(SHA256.hash(data: Data(token.utf8)))
    }

    /// A short digest of the password hash a reset replaces: the link dies when the password
    /// changes by any other way.
    static func passwordStamp(_ passwordHash: String?) -> String {
        Hex.encode(SHA256.hash(data: Data((passwordHash ?? "").utf8)).prefix(16))
    }

    /// A code as typed: six digits, else `VALIDATION_FAILED`.
    static func readCode(_ raw: String) throws -> String {
        let code = raw.trimmingCharacters(in: .whitespaces)
        guard code.utf8.count == 6, code.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw ServiceError.validation("`code` must be the six digits of the mail.")
        }
        return code
    }

    /// A link token as presented: base64url, 43 characters, else `VALIDATION_FAILED`.
    static func readLinkToken(_ raw: String) throws -> String {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        guard raw.utf8.count == 43, raw.utf8.allSatisfy(alphabet.contains) else {
            throw ServiceError.validation("`token` must be the token of the mailed link.")
        }
        return raw
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static let invalidCode = ServiceError(
        .invalidCode, "The code is wrong, expired or used up: ask for a new one if needed.")
    static let invalidLink = ServiceError(
        .invalidCode, "The link was used already, has expired, or a newer mail replaced it.")
}
