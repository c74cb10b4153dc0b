import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import ServiceHTTP

/// What Pinhole speaks of tus 1.0.0 (tus.io/protocols/resumable-upload): the core protocol and
/// the creation, creation-with-upload, termination, checksum (`sha1`, `sha256`) and
/// expiration extensions.
enum Tus {
    static let version = "1.0.0"
    static let extensions = "creation,creation-with-upload,termination,checksum,expiration"
    static let checksumAlgorithms = "sha1,sha256"
    /// The type of PATCH bodies.
    static let offsetContentType = "application/offset+octet-stream"

    /// Every tus request names the protocol version (412 otherwise, with the one offered).
    static func requireVersion(_ request: Request) throws {
        guard request.headers[.tusResumable] == version else {
            var headers = headers()
            headers[.tusVersion] = version
            throw ServiceError(.tusVersionUnsupported, "Send `Tus-Resumable: 1.0.0`.", headers: headers)
        }
    }

    /// The headers of every tus answer: the version and, for an upload, when it expires.
    static func headers(expires: Date? = nil) -> HTTPFields {
        var headers: HTTPFields = [.tusResumable: version]
        if let expires { headers[.uploadExpires] = httpDate(expires) }
        return headers
    }

    /// RFC 9110 IMF-fixdate, as `Upload-Expires` wants.
    static func httpDate(_ date: Date) -> String { HTTPDate.format(date) }
}

extension HTTPField.Name {
    static let tusResumable = HTTPField.Name(TusHeader.resumable)!
    static let tusVersion = HTTPField.Name(TusHeader.version)!
    static let tusExtension = HTTPField.Name(TusHeader.extension)!
    static let tusMaxSize = HTTPField.Name(TusHeader.maxSize)!
    static let tusChecksumAlgorithm = HTTPField.Name(TusHeader.checksumAlgorithm)!
    static let uploadOffset = HTTPField.Name(TusHeader.uploadOffset)!
    static let uploadLength = HTTPField.Name(TusHeader.uploadLength)!
    static let uploadMetadata = HTTPField.Name(TusHeader.uploadMetadata)!
    static let uploadExpires = HTTPField.Name(TusHeader.uploadExpires)!
    static let uploadChecksum = HTTPField.Name(TusHeader.uploadChecksum)!
    static let pinholeMediaID = HTTPField.Name(TusHeader.mediaID)!
}
