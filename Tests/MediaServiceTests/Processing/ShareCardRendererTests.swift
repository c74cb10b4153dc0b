import CVips
import Contracts
import Foundation
import Testing

@testable import MediaService

/// Milestone share cards as libvips draws them: the size stories need, the style's gradient,
/// white type where the count and avatars go and nowhere else.
@Suite struct ShareCardRendererTests {
    /// The 8-bit RGB pixels of a `width`×`height` region of `image` at (`x`, `y`).
    static func pixels(_ image: Vips.Image, x: Int, y: Int, width: Int = 1, height: Int = 1) throws -> [[UInt8]] {
        let region = try Vips.call(
            "crop",
            [
                "input": .image(image), "left": .int(Int32(x)), "top": .int(Int32(y)), "width": .int(Int32(width)),
                "height": .int(Int32(height)),
            ])
        var size = 0
        let memory = try #require(vips_image_write_to_memory(region.pointer, &size))
        defer { g_free(memory) }
        let bytes = Array(UnsafeRawBufferPointer(start: memory, count: size))
        let bands = Int(vips_image_get_bands(region.pointer))
        return stride(from: 0, to: bytes.count, by: bands).map { Array(bytes[$0..<$0 + 3]) }
    }

    static func near(_ pixel: [UInt8], _ colour: [Double]) -> Bool {
        zip(pixel, colour).allSatisfy { abs(Double($0) - $1) <= 2 }
    }

    @Test(arguments: ShareCardStyle.allCases)
    func aCardIsAStorySizedPNGInItsStylesGradientWithTheCountAndBothAvatars(style: ShareCardStyle) throws {
        #expect(Vips.started)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("card-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        let card = ShareCardRender(
            ownerId: UUID().uuidString.lowercased(), style: style, count: 365, names: ["Alice & <b>", "Bob"],
            since: "2025-11-23", watermark: "StreakSnap")
        try ShareCardRenderer.render(card, to: file)

        let bytes = try Data(contentsOf: file)
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let image = try Vips.load(file, contentType: "image/png")
        #expect(image.width == 1080 && image.height == 1920)
        #expect(vips_image_get_bands(image.pointer) == 3)

        let (top, bottom) = ShareCardRenderer.gradient(style)
        #expect(Self.near(try Self.pixels(image, x: 4, y: 0)[0], top))
        #expect(Self.near(try Self.pixels(image, x: 1075, y: 1919)[0], bottom))
        // Above the count there is only the gradient; the count's rows hold white type.
        #expect(!(try Self.pixels(image, x: 0, y: 200, width: 1080, height: 150)).contains([255, 255, 255]))
        #expect(try Self.pixels(image, x: 0, y: 420, width: 1080, height: 300).contains([255, 255, 255]))
        // The first avatar's white ring, left of the centre line, at its widest row.
        #expect(try Self.pixels(image, x: 272, y: 1200)[0] == [255, 255, 255])
        // The names' row (one holds Pango markup characters, drawn as text once escaped).
        #expect(try Self.pixels(image, x: 0, y: 1380, width: 1080, height: 80).contains([255, 255, 255]))
    }
}
