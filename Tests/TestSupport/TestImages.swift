import Foundation

/// Small files whose first bytes are those of real image formats, for upload tests. Media
/// checks the signature of each format (decoding arrives with image processing).
public enum TestImages {
    /// A JPEG signature followed by `size` bytes derived from `seed` (distinct seeds, distinct hashes).
    public static func jpeg(seed: UInt8 = 1, size: Int = 2048) -> Data {
        Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]) + Data("JFIF".utf8) + filler(seed: seed, size: size)
            + Data([0xFF, 0xD9])
    }

    /// A PNG signature and IHDR start.
    public static func png(seed: UInt8 = 1, size: Int = 2048) -> Data {
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + Data("IHDR".utf8)
            + filler(seed: seed, size: size)
    }

    /// An ISO-BMFF `ftyp` box with the `heic` brand.
    public static func heic(seed: UInt8 = 1, size: Int = 2048) -> Data {
        Data([0, 0, 0, 24]) + Data("ftypheic".utf8) + Data([0, 0, 0, 0]) + Data("mif1heic".utf8)
            + filler(seed: seed, size: size)
    }

    static func filler(seed: UInt8, size: Int) -> Data {
        var state = UInt32(seed) &* 2_654_435_761 | 1
        return Data(
            (0..<size).map { _ in
                state ^= state << 13
                state ^= state >> 17
                state ^= state << 5
                return UInt8(truncatingIfNeeded: state)
            })
    }
}
