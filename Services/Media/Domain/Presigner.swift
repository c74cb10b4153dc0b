import Crypto
import Foundation
import ServiceHTTP

/// Signs and checks presigned URLs: HMAC-SHA256, under a key media keeps in its data
/// directory, over the method, the object, and for uploads the owner, type and size limit,
/// and the expiry. Changing any of them, or waiting past the expiry, makes the URL useless.
struct Presigner: Sendable {
    private let key: SymmetricKey

    init(key: SymmetricKey) {
        self.key = key
    }

    static let path = "/v1/media/presigned"

    func signature(_ parts: [String]) -> String {
        Base64URL.encode(HMAC<SHA256>.authenticationCode(for: Data(parts.joined(separator: "\n").utf8), using: key))
    }

    func isValid(_ signature: String, for parts: [String]) -> Bool {
        // Only the canonical spelling: the last character of 32 bytes in base64 has spare bits,
        // and a URL must not stay valid when one of them is flipped.
        guard let mac = Base64URL.decode(signature), Base64URL.encode(mac) == signature else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            mac, authenticating: Data(parts.joined(separator: "\n").utf8), using: key)
    }

    static func uploadParts(id: String, owner: String, type: String, maxBytes: Int, expires: Int) -> [String] {
        ["PUT", "\(path)/\(id)", owner, type, String(maxBytes), String(expires)]
    }

    static func downloadParts(id: String, expires: Int) -> [String] {
        ["GET", "\(path)/\(id)", String(expires)]
    }

    /// Evidence is uploaded to its own path; the type and limit are the evidence row's.
    static let evidencePath = "/v1/evidence/presigned"

    static func evidenceParts(id: String, type: String, maxBytes: Int, expires: Int) -> [String] {
        ["PUT", "\(evidencePath)/\(id)", type, String(maxBytes), String(expires)]
    }

    func uploadURL(id: String, owner: String, type: String, maxBytes: Int, expires: Int) -> String {
        let signature = signature(
            Self.uploadParts(id: id, owner: owner, type: type, maxBytes: maxBytes, expires: expires))
        let encodedType = type.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? type
        return "\(Self.path)/\(id)?owner=\(owner)&type=\(encodedType)&max=\(maxBytes)&exp=\(expires)&sig=\(signature)"
    }

    func evidenceURL(id: String, type: String, maxBytes: Int, expires: Int) -> String {
        let signature = signature(Self.evidenceParts(id: id, type: type, maxBytes: maxBytes, expires: expires))
        return "\(Self.evidencePath)/\(id)?exp=\(expires)&sig=\(signature)"
    }

    /// The expiry of a presigned request whose `exp` and `sig` sign `parts(expiry)`, when it
    /// has not passed at `now`; 403 when the URL was altered or has expired.
    func check(expires text: String?, signature: String?, now: Date, parts: (Int) -> [String]) throws -> Int {
        guard let expires = text.flatMap({ Int($0) }), let signature, isValid(signature, for: parts(expires)) else {
            throw Self.refused
        }
        guard expires > Int(now.timeIntervalSince1970) else { throw Self.expired }
        return expires
    }

    static let refused = ServiceError(.forbidden, "The URL's signature does not match: it was altered.")
    static let expired = ServiceError(.forbidden, "The URL has expired; ask for a new one.")

    func downloadURL(id: String, expires: Int) -> String {
        "\(Self.path)/\(id)?exp=\(expires)&sig=\(signature(Self.downloadParts(id: id, expires: expires)))"
    }
}
