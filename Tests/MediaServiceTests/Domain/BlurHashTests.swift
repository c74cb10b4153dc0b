import Testing

@testable import MediaService

/// BlurHash against the reference: the hashes below are those of the `blurhash` package from
/// PyPI (1.1.5, a port of Wolt's encoder) for the same pixels, so a client's decoder paints
/// what the format says.
@Suite struct BlurHashTests {
    /// `width`×`height` RGB pixels from `color`.
    static func image(_ width: Int, _ height: Int, _ color: (Int, Int) -> (Int, Int, Int)) -> [UInt8] {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = color(x, y)
                pixels += [UInt8(r), UInt8(g), UInt8(b)]
            }
        }
        return pixels
    }

    static let gradient = image(8, 6) { x, y in ((x * 37) % 256, (y * 53) % 256, ((x + y) * 29) % 256) }

    @Test(arguments: [
        (1, 1, "00E.*N"), (4, 3, "LdE.*NB*6a^4z}RySKr|dIemfVeo"),
        (
            9, 9,
            "|dE.*NB*6a^4A.xusSKh,Vz}RySKr|SJjJjqWGn~dIemfVeofMeufOetfN%{S~SNt0SPkWjpXSn~enf3fOfAfTf3fQfAfNz#R:SNr]SJjJjwWBn~g?fzfNf,fRf+fMfzfVz#R:SNr]SJjJjwWBn~enf3fOfAfTf3fQfAfN"
        ),
    ])
    func aGradientHasTheReferenceHash(x: Int, y: Int, expected: String) {
        #expect(BlurHash.encode(pixels: Self.gradient, width: 8, height: 6, bands: 3, components: x, y) == expected)
    }

    @Test func tallAndFlatImagesHaveTheReferenceHash() {
        let stripes = Self.image(5, 7) { x, y in (x < 2 ? 255 : 10, 120, 255 - y * 30) }
        #expect(
            BlurHash.encode(pixels: stripes, width: 5, height: 7, bands: 3, components: 3, 4)
                == "T~Jixq}H|cxgw~sUfWfTfQxdw}sU")
        let grey = Self.image(4, 4) { _, _ in (200, 200, 200) }
        #expect(BlurHash.encode(pixels: grey, width: 4, height: 4, bands: 3) == "LlN17T~qfQ~q~qxufQxufQfQfQfQ")
    }

    /// A fourth band (alpha) is skipped; nonsense sizes and component counts give no hash.
    @Test func extraBandsAreSkippedAndNonsenseIsRefused() {
        let rgba = stride(from: 0, to: Self.gradient.count, by: 3).flatMap {
            Array(Self.gradient[$0..<$0 + 3]) + [UInt8(9)]
        }
        #expect(
            BlurHash.encode(pixels: rgba, width: 8, height: 6, bands: 4)
                == BlurHash.encode(pixels: Self.gradient, width: 8, height: 6, bands: 3))
        #expect(BlurHash.encode(pixels: Self.gradient, width: 8, height: 6, bands: 3, components: 10, 3) == nil)
        #expect(BlurHash.encode(pixels: Self.gradient, width: 9, height: 6, bands: 3) == nil)
        #expect(BlurHash.encode(pixels: [], width: 0, height: 0, bands: 3) == nil)
    }
}
