import CVips
import Contracts
import Foundation

/// A streak's milestone share card, drawn with libvips: a 1080×1920 PNG (an Instagram or
/// TikTok story) with the style's vertical gradient, the count in large type, "DAY STREAK",
/// both avatars (initials in a circle, until profiles carry pictures), both names, the day the
/// run started and the watermark. Text goes through Pango (DejaVu Sans, from fontconfig).
enum ShareCardRenderer {
    static let width = 1080
    static let height = 1920

    /// Top and bottom colours of each style, from the seed's share-milestone screen.
    static func gradient(_ style: ShareCardStyle) -> (top: [Double], bottom: [Double]) {
        switch style {
        case .orange: ([0xFF, 0x6B, 0x35], [0xFF, 0x3D, 0x00])
        case .purple: ([0x7C, 0x3A, 0xED], [0x4F, 0x46, 0xE5])
        case .green: ([0x22, 0xC5, 0x5E], [0x16, 0x65, 0x34])
        case .dark: ([0x1C, 0x1C, 0x1E], [0x0A, 0x0A, 0x0A])
        }
    }

    /// Draws `card` and writes it as PNG to `file`. Blocks: call it on a thread pool.
    static func render(_ card: ShareCardRender, to file: URL) throws {
        var canvas = try background(card.style)
        let white = try solid([255, 255, 255])
        func paint(_ mask: Vips.Image, at y: Int, x: Int? = nil, opacity: Double = 1) throws {
            canvas = try blend(white, over: canvas, mask: try place(mask, x: x, y: y, opacity: opacity))
        }
        func centred(_ markup: String, font: String, y: Int, opacity: Double = 1) throws {
            let text = try text(markup, font: font)
            try paint(text, at: y, x: (width - text.width) / 2, opacity: opacity)
        }
        try centred("\(card.count)", font: "DejaVu Sans Bold 300", y: 420)
        try centred("DAY STREAK", font: "DejaVu Sans Bold 72", y: 860, opacity: 0.8)
        // Two avatars side by side, each an initial in a translucent circle with a white ring.
        let diameter = 240
        for (index, name) in card.names.prefix(2).enumerated() {
            let left = width / 2 + (index == 0 ? -diameter - 30 : 30)
            try paint(try circle(diameter), at: 1080, x: left)
            canvas = try blend(
                try background(card.style), over: canvas,
                mask: try place(try circle(diameter - 16), x: left + 8, y: 1088, opacity: 0.8))
            let initial = try text(
                escape(name.first.map { String($0).uppercased() } ?? "?"), font: "DejaVu Sans Bold 110")
            try paint(initial, at: 1080 + (diameter - initial.height) / 2, x: left + (diameter - initial.width) / 2)
        }
        let names = card.names.prefix(2).map { "@" + escape($0) }.joined(separator: " &amp; ")
        try centred(names, font: "DejaVu Sans Bold 56", y: 1380)
        if let since = card.since {
            try centred("since \(escape(since))", font: "DejaVu Sans 44", y: 1480, opacity: 0.6)
        }
        try centred(escape(card.watermark), font: "DejaVu Sans Bold 48", y: 1760, opacity: 0.4)
        try Vips.save("pngsave", ["in": .image(canvas), "filename": .string(file.path), "strip": .bool(true)])
    }

    /// The style's gradient, top to bottom, as 8-bit sRGB.
    private static func background(_ style: ShareCardStyle) throws -> Vips.Image {
        let (top, bottom) = gradient(style)
        let coordinates = try Vips.call("xyz", ["width": .int(Int32(width)), "height": .int(Int32(height))])
        let rows = try Vips.call("extract_band", ["in": .image(coordinates), "band": .int(1)])
        let span = Double(height - 1)
        let colour = try Vips.call(
            "linear",
            [
                "in": .image(rows), "a": .doubles(zip(top, bottom).map { ($1 - $0) / span }), "b": .doubles(top),
                "uchar": .bool(true),
            ])
        return try Vips.call(
            "copy", ["in": .image(colour), "interpretation": .enumeration(vips_interpretation_get_type(), "srgb")])
    }

    /// A canvas-sized image of one colour.
    private static func solid(_ rgb: [Double]) throws -> Vips.Image {
        let black = try Vips.call("black", ["width": .int(Int32(width)), "height": .int(Int32(height))])
        return try Vips.call(
            "linear", ["in": .image(black), "a": .doubles([1, 1, 1]), "b": .doubles(rgb), "uchar": .bool(true)])
    }

    /// Pango `markup` in `font` as an 8-bit coverage mask, as wide as it needs (wrapped at the
    /// card's width less its margins).
    private static func text(_ markup: String, font: String) throws -> Vips.Image {
        try Vips.call(
            "text",
            [
                "text": .string(markup), "font": .string(font), "width": .int(Int32(width - 120)),
                "align": .enumeration(vips_align_get_type(), "centre"),
            ])
    }

    /// A filled circle's mask, `diameter` wide.
    private static func circle(_ diameter: Int) throws -> Vips.Image {
        let radius = Double(diameter) / 2
        let coordinates = try Vips.call("xyz", ["width": .int(Int32(diameter)), "height": .int(Int32(diameter))])
        let centred = try Vips.call(
            "linear",
            ["in": .image(coordinates), "a": .doubles([1, 1]), "b": .doubles([-radius + 0.5, -radius + 0.5])])
        let squares = try Vips.call("multiply", ["left": .image(centred), "right": .image(centred)])
        let mean = try Vips.call("bandmean", ["in": .image(squares)])
        return try Vips.call(
            "relational_const",
            [
                "in": .image(mean), "relational": .enumeration(vips_operation_relational_get_type(), "less"),
                "c": .doubles([radius * radius / 2]),
            ])
    }

    /// `mask` on a canvas-sized black mask at (`x`, `y`), scaled by `opacity`.
    private static func place(_ mask: Vips.Image, x: Int?, y: Int, opacity: Double) throws -> Vips.Image {
        var mask = mask
        if opacity < 1 {
            mask = try Vips.call(
                "linear", ["in": .image(mask), "a": .doubles([opacity]), "b": .doubles([0]), "uchar": .bool(true)])
        }
        return try Vips.call(
            "embed",
            [
                "in": .image(mask), "x": .int(Int32(x ?? (width - mask.width) / 2)), "y": .int(Int32(y)),
                "width": .int(Int32(width)), "height": .int(Int32(height)),
            ])
    }

    /// `top` over `bottom` where `mask` covers (0…255 mixes them).
    private static func blend(_ top: Vips.Image, over bottom: Vips.Image, mask: Vips.Image) throws -> Vips.Image {
        try Vips.call(
            "ifthenelse", ["cond": .image(mask), "in1": .image(top), "in2": .image(bottom), "blend": .bool(true)])
    }

    /// Text safe inside Pango markup.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
