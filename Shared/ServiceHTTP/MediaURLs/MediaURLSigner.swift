import Contracts
import Crypto
import Foundation
import Synchronization

/// The URLs of media views: `/v1/media/views/{id}/{variant}?exp=&kid=&sig=`, an HMAC-SHA256 over
/// the media id, the variant and the expiry under one of media's view keys (``MediaURLKeys``).
/// A plain image loader fetches them: no token, cacheable, and useless once altered or expired.
///
/// A URL's expiry is rounded up to the next whole `window` and then one more: the same media
/// gets the same URL for a while (a client's cache and a CDN keep working across pages), and
/// every URL lives between one and two windows. So a signer also keeps the URLs it signed
/// (``SignedURLs``): a page of twenty posts asks for some eighty URLs, and a popular photo's are
/// asked for by every reader of the window; each is signed once per window.
public struct MediaURLSigner: Sendable {
    public static let path = "/v1/media/views"

    /// The key signed with, and every key a URL may have been signed with.
    public let current: (kid: String, key: SymmetricKey)
    let keys: [String: SymmetricKey]
    public let window: Int
    let signed: SignedURLs

    public init(_ keys: MediaURLKeys, window: Int = 3600, keeping capacity: Int = 50_000) throws {
        var decoded: [String: SymmetricKey] = [:]
        for key in keys.keys {
            guard let bytes = Base64URL.decode(key.secret), bytes.count == 32 else {
                throw ServiceError(.internalError, "Media view key \(key.kid) is not 32 bytes of base64url.")
            }
            decoded[key.kid] = SymmetricKey(data: bytes)
        }
        guard let current = decoded[keys.current] else {
            throw ServiceError(.internalError, "The current media view key \(keys.current) is not among the keys.")
        }
        self.current = (keys.current, current)
        self.keys = decoded
        self.window = window
        self.signed = SignedURLs(capacity: capacity)
    }

    /// When URLs signed at `now` expire.
    public func expiry(at now: Date) -> Int {
        let seconds = Int(now.timeIntervalSince1970)
        return (seconds / window + 2) * window
    }

    /// The URL of `variant` of `mediaId`, good until `expires`.
    public func url(_ mediaId: String, _ variant: MediaVariant, expires: Int) -> String {
        let key = SignedURLs.Key(mediaId: mediaId, variant: variant)
        if let url = signed.url(key, expires: expires) { return url }
        let signature = Self.signature(mediaId, variant, expires: expires, key: current.key)
        let url = "\(Self.path)/\(mediaId)/\(variant.rawValue)?exp=\(expires)&kid=\(current.kid)&sig=\(signature)"
        signed.keep(url, for: key, expires: expires)
        return url
    }

    /// Whether `signature` signs this media, variant and expiry under key `kid` (one still
    /// listed); an altered URL, an unknown key or a non-canonical signature is refused.
    public func isValid(
        _ mediaId: String, _ variant: MediaVariant, expires: Int, kid: String, signature: String
    ) -> Bool {
        guard let key = keys[kid], let mac = Base64URL.decode(signature), Base64URL.encode(mac) == signature else {
            return false
        }
        return HMAC<SHA256>.isValidAuthenticationCode(
            mac, authenticating: Self.message(mediaId, variant, expires), using: key)
    }

    static func signature(_ mediaId: String, _ variant: MediaVariant, expires: Int, key: SymmetricKey) -> String {
        Base64URL.encode(HMAC<SHA256>.authenticationCode(for: message(mediaId, variant, expires), using: key))
    }

    static func message(_ mediaId: String, _ variant: MediaVariant, _ expires: Int) -> Data {
        Data("media-view\n\(mediaId)\n\(variant.rawValue)\n\(expires)".utf8)
    }
}

/// The URLs one signer signed, by media and variant, with the expiry each was signed for: a URL
/// for another expiry is signed again (and replaces it). At `capacity` the whole set is let go
/// (a window's URLs are signed again as pages ask for them), so memory stays bounded.
final class SignedURLs: Sendable {
    struct Key: Hashable, Sendable {
        var mediaId: String
        var variant: MediaVariant
    }

    private let urls = Mutex<[Key: (expires: Int, url: String)]>([:])
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    func url(_ key: Key, expires: Int) -> String? {
        urls.withLock { urls in urls[key].flatMap { $0.expires == expires ? $0.url : nil } }
    }

    func keep(_ url: String, for key: Key, expires: Int) {
        urls.withLock { urls in
            if urls.count >= capacity, urls[key] == nil { urls.removeAll(keepingCapacity: true) }
            urls[key] = (expires, url)
        }
    }

    var count: Int { urls.withLock { $0.count } }
}
