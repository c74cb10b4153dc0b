import Contracts
import Foundation
import ServiceHTTP

/// Fixed media view keys for services run in process without media: their views carry URLs
/// signed with these, which a test can check with ``signer``.
public enum TestViewKeys {
    public static let keys = MediaURLKeys(
        current: "vtest", keys: [MediaURLKey(kid: "vtest", secret: Base64URL.encode([UInt8](repeating: 7, count: 32)))])

    /// A ring holding ``keys``.
    public static var ring: MediaURLKeyRing { try! MediaURLKeyRing.fixed(keys) }

    /// What checks URLs signed with ``keys``.
    public static var signer: MediaURLSigner { try! MediaURLSigner(keys) }
}
