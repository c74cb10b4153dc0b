import Foundation
import ServiceHTTP

/// Digests a client declares (tus `Upload-Metadata`, evidence finalize), which clients send
/// in hex or in base64.
enum DeclaredDigest {
    /// The SHA-256 in `text` as lowercase hex; nil when it is neither 64 hex digits nor the
    /// base64 of 32 bytes.
    static func sha256(_ text: String) -> String? {
        if text.count == 64, let bytes = Hex.decode(text) { return Hex.encode(bytes) }
        return Data(base64Encoded: text).flatMap { $0.count == 32 ? Hex.encode($0) : nil }
    }
}
