import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import ServiceHTTP

/// What Pinhole speaks of the IETF draft "Resumable Uploads for HTTP"
/// (draft-ietf-httpbis-resumable-upload), the protocol Apple's URLSession uses natively for
/// uploads from iOS 17: interop version 3 (draft 01, iOS 17), which marks a request that leaves
/// the upload unfinished with `Upload-Incomplete: ?1`, and versions 5 and 6 (drafts 03 to 05,
/// iOS 18), which mark the one that finishes it with `Upload-Complete: ?1` (version 6 sends
/// appends as `application/partial-upload`, accepted here from every version). The same
/// versions as swift-nio-extras's `NIOResumableUpload`, Apple's server side of the draft.
/// Values are RFC 8941 structured fields: booleans `?0`/`?1`, non-negative integers.
struct ResumableUploadDraft {
    static let versions = [3, 5, 6]
    /// `104 Upload Resumption Supported`: the upload exists, at `Location`; bytes follow.
    static let resumptionSupported = HTTPResponse.Status(code: 104, reasonPhrase: "Upload Resumption Supported")

    /// The interop version the client named; every answer repeats it.
    let version: Int

    /// The request's interop version: 400 when it is missing or one not spoken here.
    init(_ request: Request) throws {
        guard let text = request.headers[.uploadDraftInteropVersion] else {
            throw ServiceError.validation(
                "`Upload-Draft-Interop-Version` is required (\(Self.versions.map(String.init).joined(separator: ", ")))."
            )
        }
        guard let version = Int(text), Self.versions.contains(version) else {
            throw ServiceError(
                .validationFailed,
                "Interop version \(text) is not spoken here: \(Self.versions.map(String.init).joined(separator: ", ")).",
                headers: [.uploadDraftInteropVersion: String(Self.versions.last!)])
        }
        self.version = version
    }

    /// Whether the request ends the upload, or nil when it does not say.
    func completes(_ request: Request) throws -> Bool? {
        if version >= 5 { return try Self.boolean(request.headers[.uploadComplete], named: "Upload-Complete") }
        return try Self.boolean(request.headers[.uploadIncomplete], named: "Upload-Incomplete").map { !$0 }
    }

    /// A structured-field integer header (`Upload-Offset`, `Upload-Length`), or nil when absent.
    func integer(_ name: HTTPField.Name, in request: Request) throws -> Int? {
        guard let text = request.headers[name] else { return nil }
        guard let value = StrictNumbers.count(text) else {
            throw ServiceError(
                .validationFailed, "`\(name.canonicalName)` must be a whole number of bytes.", headers: headers())
        }
        return value
    }

    /// The headers of every answer: the version, and where the upload stands when known.
    func headers(offset: Int? = nil, complete: Bool? = nil, location: String? = nil) -> HTTPFields {
        var headers: HTTPFields = [.uploadDraftInteropVersion: String(version)]
        if let location { headers[.location] = location }
        if let complete {
            if version >= 5 {
                headers[.uploadComplete] = complete ? "?1" : "?0"
            } else {
                headers[.uploadIncomplete] = complete ? "?0" : "?1"
            }
        }
        if let offset { headers[.uploadOffset] = String(offset) }
        return headers
    }

    private static func boolean(_ text: String?, named name: String) throws -> Bool? {
        switch text {
        case nil: nil
        case "?1": true
        case "?0": false
        default: throw ServiceError.validation("`\(name)` must be `?1` or `?0`.")
        }
    }
}

extension HTTPField.Name {
    static let uploadDraftInteropVersion = HTTPField.Name(ResumableUploadHeader.interopVersion)!
    static let uploadIncomplete = HTTPField.Name(ResumableUploadHeader.incomplete)!
    static let uploadComplete = HTTPField.Name(ResumableUploadHeader.complete)!
}
