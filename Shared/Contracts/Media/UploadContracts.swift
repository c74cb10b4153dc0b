import Foundation

/// What an upload is for; it decides the size limit and, later, processing.
public enum UploadPurpose: String, Codable, Sendable, CaseIterable {
    case post
    case snap
    case challengeClip = "challenge_clip"
    case evidence
    case avatar
}

/// Where an upload is in its life. Only these moves happen:
/// `pending_upload → uploading → processing → ready | rejected`, and `pending_upload` or
/// `uploading` → `terminated` (the client ended it) or `expired`.
public enum UploadState: String, Codable, Sendable, CaseIterable {
    case pendingUpload = "pending_upload"
    case uploading
    case processing
    case ready
    case rejected
    case terminated
    case expired

    /// The states this one may move to.
    public var next: Set<UploadState> {
        switch self {
        case .pendingUpload: [.uploading, .processing, .terminated, .expired]
        case .uploading: [.processing, .terminated, .expired]
        case .processing: [.ready, .rejected]
        case .ready, .rejected, .terminated, .expired: []
        }
    }

    /// Whether bytes can still be written.
    public var acceptsBytes: Bool { self == .pendingUpload || self == .uploading }
}

/// `GET /v1/uploads/{id}`: a resumable upload as its owner sees it.
public struct UploadStatus: Codable, Sendable, Equatable {
    public var id: String
    public var purpose: UploadPurpose
    public var state: UploadState
    public var offset: Int
    public var length: Int
    public var expiresAt: Date
    /// Set once the upload became a media object.
    public var mediaId: String?
    /// Why it was rejected.
    public var rejectedReason: String?

    public init(
        id: String, purpose: UploadPurpose, state: UploadState, offset: Int, length: Int, expiresAt: Date,
        mediaId: String?, rejectedReason: String?
    ) {
        self.id = id
        self.purpose = purpose
        self.state = state
        self.offset = offset
        self.length = length
        self.expiresAt = expiresAt
        self.mediaId = mediaId
        self.rejectedReason = rejectedReason
    }
}

/// The tus 1.0.0 header names (tus.io/protocols/resumable-upload).
public enum TusHeader {
    public static let resumable = "tus-resumable"
    public static let version = "tus-version"
    public static let `extension` = "tus-extension"
    public static let maxSize = "tus-max-size"
    public static let checksumAlgorithm = "tus-checksum-algorithm"
    public static let uploadOffset = "upload-offset"
    public static let uploadLength = "upload-length"
    public static let uploadMetadata = "upload-metadata"
    public static let uploadExpires = "upload-expires"
    public static let uploadChecksum = "upload-checksum"
    /// Pinhole's: the media an upload became, on the PATCH that completed it.
    public static let mediaID = "pinhole-media-id"
}

/// The header names of the IETF draft "Resumable Uploads for HTTP"
/// (draft-ietf-httpbis-resumable-upload) that Pinhole reads and writes beside tus's.
public enum ResumableUploadHeader {
    public static let interopVersion = "upload-draft-interop-version"
    /// Interop version 3 (draft 01): `?1` while more requests will follow.
    public static let incomplete = "upload-incomplete"
    /// Interop versions 5 and later: `?1` on the request that ends the upload.
    public static let complete = "upload-complete"
}

/// `POST /v1/media/presign`: a URL the app can PUT one file to without a token.
public struct PresignUploadRequest: Codable, Sendable {
    /// The type the bytes must be (checked against them on arrival).
    public var contentType: String
    public var purpose: UploadPurpose?

    public init(contentType: String, purpose: UploadPurpose? = nil) {
        self.contentType = contentType
        self.purpose = purpose
    }
}

/// A presigned URL: time-limited, HMAC-signed, bound to its method, object, type and size.
public struct PresignedURL: Codable, Sendable, Equatable {
    /// `PUT` or `GET`.
    public var method: String
    /// Path and query, relative to the gateway.
    public var url: String
    /// The media the URL is for (PUT: the id the uploaded object will have).
    public var mediaId: String
    /// Headers the request must send (PUT: `Content-Type`).
    public var headers: [String: String]
    /// The largest body a PUT may send.
    public var maxBytes: Int?
    public var expiresAt: Date

    public init(
        method: String, url: String, mediaId: String, headers: [String: String], maxBytes: Int?, expiresAt: Date
    ) {
        self.method = method
        self.url = url
        self.mediaId = mediaId
        self.headers = headers
        self.maxBytes = maxBytes
        self.expiresAt = expiresAt
    }
}
