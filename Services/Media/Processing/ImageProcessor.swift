import CVips
import Foundation
import HTTPTypes
import ServiceHTTP

/// Photos through libvips: the header is read first and more than `maxPixels` is refused
/// before a pixel is decoded (no decompression bombs); then an upright, sRGB copy without
/// EXIF, GPS, XMP or IPTC (what everyone but the owner downloads) and a 300×300 thumbnail.
struct ImageProcessor: Sendable {
    let maxPixels: Int

    static let thumbnailSide: Int32 = 300

    struct Output {
        var display: URL
        var displayType: String
        var thumbnail: URL
        var width: Int
        var height: Int
        /// A BlurHash of the display copy, when one could be made.
        var placeholder: String?
    }

    /// The type the display copy is saved as: the same as the original, except HEIC, which
    /// becomes JPEG (what every browser and older phone shows).
    static func displayType(for contentType: String) -> String {
        switch contentType {
        case "image/png", "image/webp": contentType
        default: "image/jpeg"
        }
    }

    /// Processes `file` (already known by its magic bytes to be `contentType`), writing the
    /// display copy and the thumbnail next to `output` (a fresh path prefix). Blocks: call it
    /// on a thread pool.
    func process(_ file: URL, contentType: String, output: URL) throws -> Output {
        var image: Vips.Image
        do {
            image = try Vips.load(file, contentType: contentType)
        } catch let failure as Vips.Failure {
            throw MediaRejection(reason: "the image cannot be read (\(Self.firstLine(failure)))")
        }
        let (width, height) = (image.width, image.height)
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, !overflow, pixels <= maxPixels else {
            throw MediaRejection(reason: "the image is \(width)×\(height) pixels; at most \(maxPixels) are accepted")
        }
        let displayType = Self.displayType(for: contentType)
        let display = output.appendingPathExtension("display")
        let thumbnail = output.appendingPathExtension("thumbnail")
        var placeholder: String?
        do {
            image = try Vips.call("autorot", ["in": .image(image)])
            if Vips.hasColorProfile(image) {
                image = try Vips.call(
                    "icc_transform", ["in": .image(image), "output-profile": .string("srgb"), "embedded": .bool(true)])
            }
            try Self.save(image, as: displayType, to: display, quality: 85)
            let small = try Vips.call(
                "thumbnail",
                [
                    "filename": .string(display.path), "width": .int(Self.thumbnailSide),
                    "height": .int(Self.thumbnailSide),
                    "crop": .enumeration(vips_interesting_get_type(), "centre"),
                ])
            try Self.save(small, as: "image/jpeg", to: thumbnail, quality: 80)
            placeholder = Self.placeholder(of: display)
        } catch let failure as Vips.Failure {
            try? FileManager.default.removeItem(at: display)
            try? FileManager.default.removeItem(at: thumbnail)
            throw MediaRejection(reason: "the image cannot be decoded (\(Self.firstLine(failure)))")
        }
        return Output(
            display: display, displayType: displayType, thumbnail: thumbnail, width: width, height: height,
            placeholder: placeholder)
    }

    /// A BlurHash (4×3) of the image in `file`, from a copy at most 32 pixels a side: sRGB, no
    /// alpha, 8 bits. Nil when libvips cannot make one: a photo without a placeholder is still
    /// a photo.
    static func placeholder(of file: URL) -> String? {
        do {
            var small = try Vips.call(
                "thumbnail", ["filename": .string(file.path), "width": .int(32), "height": .int(32)])
            small = try Vips.call(
                "colourspace", ["in": .image(small), "space": .enumeration(vips_interpretation_get_type(), "srgb")])
            if small.bands == 2 || small.bands == 4 { small = try Vips.call("flatten", ["in": .image(small)]) }
            small = try Vips.call(
                "cast", ["in": .image(small), "format": .enumeration(vips_band_format_get_type(), "uchar")])
            return BlurHash.encode(
                pixels: try Vips.pixels(small), width: small.width, height: small.height, bands: small.bands)
        } catch {
            return nil
        }
    }

    /// Saves without any metadata (`strip`).
    static func save(_ image: Vips.Image, as type: String, to file: URL, quality: Int32) throws {
        var arguments: [String: Vips.Argument] = [
            "in": .image(image), "filename": .string(file.path), "strip": .bool(true),
        ]
        let saver: String
        switch type {
        case "image/png": saver = "pngsave"
        case "image/webp":
            saver = "webpsave"
            arguments["Q"] = .int(quality)
        default:
            saver = "jpegsave"
            arguments["Q"] = .int(quality)
        }
        try Vips.save(saver, arguments)
    }

    static func firstLine(_ failure: Vips.Failure) -> String {
        String(failure.description.split(separator: "\n").first ?? "unknown error")
    }
}
