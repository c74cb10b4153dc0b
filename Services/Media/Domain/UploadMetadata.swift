import Contracts
import Foundation
import ServiceHTTP

/// The tus `Upload-Metadata` header: comma-separated `key base64(value)` pairs. Pinhole reads
/// `filename`, `filetype`, `purpose` (default `post`) and an optional whole-file `sha256`
/// (hex or base64). The filename is only kept as a label: no client text ever names a file.
struct UploadMetadata: Equatable {
    var filename: String?
    var filetype: String?
    var purpose: UploadPurpose = .post
    /// Lowercase hex.
    var sha256: String?

    /// What the IETF draft's creation says of its file: its `Content-Type` and the route's purpose.
    init(filetype: String?, purpose: UploadPurpose) {
        self.filetype = filetype
        self.purpose = purpose
    }

    init(header: String?) throws {
        var values: [String: String] = [:]
        for pair in (header ?? "").split(separator: ",") {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            guard let key = parts.first.map(String.init), !key.isEmpty, values[key] == nil else {
                throw Self.malformed
            }
            if parts.count == 2 {
                guard let data = Data(base64Encoded: String(parts[1])), let value = String(data: data, encoding: .utf8)
                else { throw Self.malformed }
                values[key] = value
            } else {
                values[key] = ""
            }
        }
        if let filename = values["filename"] {
            guard filename.utf8.count <= 255,
                !filename.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw ServiceError.validation(
                    "`filename` metadata must be at most 255 bytes, without control characters.")
            }
            self.filename = filename
        }
        if let filetype = values["filetype"], !filetype.isEmpty {
            guard filetype.utf8.count <= 100 else { throw ServiceError.validation("`filetype` metadata is too long.") }
            self.filetype = filetype
        }
        if let purpose = values["purpose"] {
            guard let parsed = UploadPurpose(rawValue: purpose) else {
                throw ServiceError.validation(
                    "`purpose` metadata must be one of \(UploadPurpose.allCases.map(\.rawValue).joined(separator: ", "))."
                )
            }
            self.purpose = parsed
        }
        if let digest = values["sha256"] {
            guard let sha256 = DeclaredDigest.sha256(digest) else {
                throw ServiceError.validation("`sha256` metadata must be a SHA-256 in hex or base64.")
            }
            self.sha256 = sha256
        }
    }

    /// Whether the declared type is a video.
    var isVideo: Bool { ContentSniffer.claimedType(filetype)?.hasPrefix("video/") ?? false }

    /// The largest upload this purpose and type allow: challenge clips and evidence are videos
    /// (evidence may be anything up to the video limit), avatars photos, posts and snaps
    /// either, by declared type.
    func limit(photo: Int, video: Int) -> Int {
        switch purpose {
        case .challengeClip, .evidence: video
        case .avatar: photo
        case .post, .snap: isVideo ? video : photo
        }
    }

    static let malformed = ServiceError.validation(
        "`Upload-Metadata` must be comma-separated `key base64value` pairs with distinct keys.")
}
