import Foundation

/// BlurHash (Wolt's published format): a few cosine components of an image in linear light,
/// quantised and written in base 83, so a client paints a soft placeholder of the right
/// colours before a byte of the image arrives. Pure and small: media computes it once, from a
/// tiny copy, when it processes a photo or a video's first frame.
enum BlurHash {
    static let alphabet = Array(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)

    /// The hash of `width`×`height` pixels of 8-bit sRGB, `bands` bytes a pixel (the first three
    /// red, green, blue; more are ignored), with `x`×`y` components (each 1 to 9).
    static func encode(
        pixels: [UInt8], width: Int, height: Int, bands: Int, components x: Int = 4, _ y: Int = 3
    ) -> String? {
        guard (1...9).contains(x), (1...9).contains(y), width > 0, height > 0, bands >= 3,
            pixels.count >= width * height * bands
        else { return nil }
        let linear = pixels.map { linearFromSRGB($0) }
        var factors: [(Double, Double, Double)] = []
        for j in 0..<y {
            for i in 0..<x {
                let normalisation = (i == 0 && j == 0) ? 1.0 : 2.0
                var (r, g, b) = (0.0, 0.0, 0.0)
                for py in 0..<height {
                    let vertical = cos(Double.pi * Double(j) * Double(py) / Double(height))
                    for px in 0..<width {
                        let basis = cos(Double.pi * Double(i) * Double(px) / Double(width)) * vertical
                        let at = (py * width + px) * bands
                        r += basis * linear[at]
                        g += basis * linear[at + 1]
                        b += basis * linear[at + 2]
                    }
                }
                let scale = normalisation / Double(width * height)
                factors.append((r * scale, g * scale, b * scale))
            }
        }
        var hash = base83((x - 1) + (y - 1) * 9, length: 1)
        let ac = factors.dropFirst()
        let maximum: Double
        if let largest = ac.map({ Swift.max(abs($0.0), abs($0.1), abs($0.2)) }).max() {
            let quantised = Swift.max(0, Swift.min(82, Int((largest * 166 - 0.5).rounded(.down))))
            maximum = Double(quantised + 1) / 166
            hash += base83(quantised, length: 1)
        } else {
            maximum = 1
            hash += base83(0, length: 1)
        }
        let dc = factors[0]
        hash += base83(
            (sRGBFromLinear(dc.0) << 16) + (sRGBFromLinear(dc.1) << 8) + sRGBFromLinear(dc.2), length: 4)
        for factor in ac {
            func quantise(_ value: Double) -> Int {
                Swift.max(0, Swift.min(18, Int((signedRoot(value / maximum) * 9 + 9.5).rounded(.down))))
            }
            hash += base83(quantise(factor.0) * 19 * 19 + quantise(factor.1) * 19 + quantise(factor.2), length: 2)
        }
        return hash
    }

    /// `value` in base 83, `length` digits, most significant first.
    static func base83(_ value: Int, length: Int) -> String {
        var digits = [UInt8](repeating: 0, count: length)
        var rest = value
        for index in stride(from: length - 1, through: 0, by: -1) {
            digits[index] = alphabet[rest % 83]
            rest /= 83
        }
        return String(decoding: digits, as: UTF8.self)
    }

    /// An 8-bit sRGB value in linear light, 0 to 1.
    static func linearFromSRGB(_ value: UInt8) -> Double {
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// A linear value back in 8-bit sRGB, 0 to 255.
    static func sRGBFromLinear(_ value: Double) -> Int {
        let v = Swift.max(0, Swift.min(1, value))
        let encoded = v <= 0.003_130_8 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
        return Int((encoded * 255 + 0.5).rounded(.down))
    }

    /// The square root of `value`'s magnitude, with its sign.
    static func signedRoot(_ value: Double) -> Double {
        value < 0 ? -sqrt(-value) : sqrt(value)
    }
}
