import Foundation

/// Decides a file's type from its first bytes, never from what the client claims.
enum ContentSniffer {
    /// Bytes needed to decide.
    static let prefixLength = 12

    /// The image types a single-request upload accepts.
    static let imageTypes: Set<String> = ["image/jpeg", "image/png", "image/heic"]

    /// Every type a resumable upload accepts.
    static let uploadTypes: Set<String> = imageTypes.union(["image/webp", "video/mp4", "video/quicktime"])

    /// ISO-BMFF major brands of MP4 video, and QuickTime's.
    static let mp4Brands: Set<String> = [
        "isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "dash", "M4V ", "MSNV", "3gp4", "3gp5",
    ]

    /// ISO-BMFF major brands of HEIF images (HEIC and the generic HEIF family).
    static let heifBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]

    /// The type of a file that starts with `prefix`, or nil when it is none we know.
    static func contentType(of prefix: [UInt8]) -> String? {
        if prefix.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if prefix.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if prefix.count >= 12, prefix[4..<8].elementsEqual("ftyp".utf8),
            heifBrands.contains(String(decoding: prefix[8..<12], as: UTF8.self))
        {
            return "image/heic"
        }
        if prefix.count >= 12, prefix[4..<8].elementsEqual("ftyp".utf8) {
            let brand = String(decoding: prefix[8..<12], as: UTF8.self)
            if brand == "qt  " { return "video/quicktime" }
            if mp4Brands.contains(brand) { return "video/mp4" }
        }
        if prefix.count >= 12, prefix[0..<4].elementsEqual("RIFF".utf8), prefix[8..<12].elementsEqual("WEBP".utf8) {
            return "image/webp"
        }
        return nil
    }

    /// The canonical type a client's `Content-Type` claims, or nil when it claims nothing
    /// specific (absent or `application/octet-stream`). `image/heif` and `image/heic` are
    /// the same family.
    static func claimedType(_ header: String?) -> String? {
        guard let header else { return nil }
        let type = header.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        switch type {
        case nil, "", "application/octet-stream": return nil
        case "image/jpg", "image/pjpeg": return "image/jpeg"
        case "image/heif", "image/heic-sequence", "image/heif-sequence": return "image/heic"
        case "video/mov": return "video/quicktime"
        default: return type
        }
    }
}
