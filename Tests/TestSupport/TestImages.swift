import Foundation

/// Real, decodable images for upload and processing tests, made without any image library:
/// distinct seeds give distinct bytes (and hashes).
public enum TestImages {
    /// A 64×48 JPEG (ffmpeg's test pattern) with `size` bytes of comments derived from `seed`;
    /// with `gps`, an EXIF block carrying an orientation and a GPS latitude, as phones write.
    public static func jpeg(seed: UInt8 = 1, size: Int = 2048, gps: Bool = false) -> Data {
        let base = Data(base64Encoded: baseJPEG.joined())!
        // SOI and the JFIF APP0 segment (2 + 2 + 16 bytes), then the rest.
        let head = base.prefix(20)
        var body = Data()
        if gps { body += segment(0xE1, Data("Exif".utf8) + Data([0, 0]) + exifWithGPS) }
        var filler = filler(seed: seed, size: size)
        while !filler.isEmpty {
            body += segment(0xFE, filler.prefix(60_000))
            filler = filler.dropFirst(60_000)
        }
        return head + body + base.dropFirst(20)
    }

    /// A `width`×`height` RGB PNG whose pixels derive from `seed` (stored, not compressed).
    public static func png(seed: UInt8 = 1, width: Int = 32, height: Int = 24) -> Data {
        let noise = filler(seed: seed, size: width * 3)
        var raw = Data(capacity: (width * 3 + 1) * height)
        for row in 0..<height {
            raw.append(0)
            raw += noise.map { $0 &+ UInt8(truncatingIfNeeded: row) }
        }
        return pngFile(width: width, height: height, idat: zlibStored(raw))
    }

    /// A PNG whose header declares `width`×`height` pixels but which carries almost no data:
    /// a decompression bomb's shape, for the pixel limit.
    public static func pixelFlood(width: Int = 30_000, height: Int = 30_000) -> Data {
        pngFile(width: width, height: height, idat: zlibStored(Data(repeating: 0, count: 64)))
    }

    /// An ISO-BMFF `ftyp` box with the `heic` brand and no image: right signature, not a picture.
    public static func heicSignatureOnly(seed: UInt8 = 1, size: Int = 2048) -> Data {
        Data([0, 0, 0, 24]) + Data("ftypheic".utf8) + Data([0, 0, 0, 0]) + Data("mif1heic".utf8)
            + filler(seed: seed, size: size)
    }

    // MARK: - Building blocks

    /// The width and height a PNG's header declares, or nil when `data` is not a PNG.
    public static func pngSize(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(24))
        guard bytes.count == 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            bytes[12..<16].elementsEqual("IHDR".utf8)
        else { return nil }
        func be32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }

    static func segment(_ marker: UInt8, _ payload: some Collection<UInt8>) -> Data {
        let length = payload.count + 2
        return Data([0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)]) + Data(payload)
    }

    /// A little-endian TIFF block: IFD0 (orientation 1, a pointer to the GPS IFD) and a GPS IFD
    /// (latitude 52° 31′ N).
    static let exifWithGPS: Data = {
        var tiff = Data("II".utf8) + le16(42) + le32(8)
        tiff += le16(2) + entry(0x0112, type: 3, count: 1, value: 1) + entry(0x8825, type: 4, count: 1, value: 38)
        tiff += le32(0)
        tiff += le16(2) + entry(0x0001, type: 2, count: 2, value: UInt32(UInt8(ascii: "N")))
        tiff += entry(0x0002, type: 5, count: 3, value: 68) + le32(0)
        for part: UInt32 in [52, 31, 0] { tiff += le32(part) + le32(1) }
        return tiff
    }()

    static func entry(_ tag: UInt16, type: UInt16, count: UInt32, value: UInt32) -> Data {
        le16(tag) + le16(type) + le32(count) + le32(value)
    }

    static func le16(_ value: UInt16) -> Data { Data([UInt8(value & 0xFF), UInt8(value >> 8)]) }
    static func le32(_ value: UInt32) -> Data { Data((0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }) }
    static func be32(_ value: UInt32) -> Data {
        Data((0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
    }

    static func pngFile(width: Int, height: Int, idat: Data) -> Data {
        var header = be32(UInt32(width)) + be32(UInt32(height))
        header += Data([8, 2, 0, 0, 0])  // 8 bits, RGB, deflate, no filter method, no interlace
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + chunk("IHDR", header) + chunk("IDAT", idat)
            + chunk("IEND", Data())
    }

    static func chunk(_ type: String, _ data: Data) -> Data {
        let typed = Data(type.utf8) + data
        return be32(UInt32(data.count)) + typed + be32(crc32(typed))
    }

    /// zlib around deflate's stored blocks (RFC 1950/1951): valid and uncompressed.
    static func zlibStored(_ raw: Data) -> Data {
        var out = Data([0x78, 0x01])
        var rest = raw[...]
        repeat {
            let block = rest.prefix(65_535)
            rest = rest.dropFirst(block.count)
            let length = UInt16(block.count)
            out.append(rest.isEmpty ? 1 : 0)
            out += le16(length) + le16(~length) + block
        } while !rest.isEmpty
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in raw {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + be32(b << 16 | a)
    }

    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
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

    /// `ffmpeg -f lavfi -i testsrc=size=64x48 -frames:v 1 -q:v 5 base.jpg`, base64.
    static let baseJPEG = [
        "/9j/4AAQSkZJRgABAgAAAQABAAD//gAQTGF2YzU5LjM3LjEwMAD/2wBDAAgKCgsKCw0NDQ0NDRAPEBAQEBAQEBAQEBASEhIVFRUSEhIQ",
        "EBISFBQVFRcXFxUVFRUXFxkZGR4eHBwjIyQrKzP/xAC8AAACAgMBAQAAAAAAAAAAAAAABwYIBAUDAgEBAAIDAQEBAAAAAAAAAAAAAAAG",
        "BwQIBQIBEAACAQIEAgUGBhMBAAAAAAABAgMAEQUEEjEhBlEHQVITYrFDIhQjFRaBkuPTwuGjs8S0w4QyJEQ1gmFFcWN18EIRAAEDAgMD",
        "BQYSCwEAAAAAAAEAAgMEERIhBRMGMUFRcTIUIsHDFYMk45KEo6TUxNPCYYEXUkRiYwdD4dEW0kWxZILw5JOR/8AAEQgAMABAAwESAAIS",
        "AAMSAP/aAAwDAQACEQMRAD8Ar/W4wbC5caxLK5CI6WnkCluB0IAWkkszIG0Rhm06gWtYcaEIQmthOEnOESygiEH+xkI7B5Peb5Bx2YEU",
        "UcEaxxqFVRYAf9v0k8SaoabppqjtJLiIHoMhHIPi5z8g+J2jjZExrGNDWtFgB/n/AKeVNe+2+0egxuoqJzZNQe3M5ObSNcMnvBuDKRnH",
        "Gcrd28YbB2YKysqdQqZaqqldNNK7E97uJPDgLAACwa0ANa0AAABLxmLksxuTua80y09PDSQshhYI44xZrRwA/mSTmScyczmrC2rS0tPQ",
        "08dPTxtiiibhYxvAD5cySc3OJJcSSTdWks6Ka0LP6FcWisAITUhLIgEWPGvtN7Hujc17HFjmkOa5pIc0g3BBGYIPAheFAUcj4ntkjc5j",
        "2ODmuaS1zXA3DmkZgg5gjMLwsHCcZM5EGZI8Qn1HsAHv/wCTawDd3sO2+8FVipDKSCCCCDYgjYg9NS3puq7Y7GcjGT3D8gHfZNrAHm5+",
        "HHinAlpBBIINwRkQRyhSvvtuCNNjdqOkxuNMxt6imxOkdAGjOZheXPdFyyAkujPddS+HR8kcc0b45GNkY9pY9jwHNe1wsWuabggjIg5E",
        "K2NQ/lHHPh/BcvmXN509xmeHpowLtwRF94pWSyDSuvTfhTUhQIhIzqsjjfmCZmRWMeRmdCQCUYywpqUn9E6WZbjjpYjY106qv39mf9fL",
        "+MZehCEJp0U1oWf0Ja0U0oW60JZ0U1oWf0K4tFYAQmpCWdFNiFn9CWtFNKFupCm/VJJIY8XjLsUVso6pc6VZxOGYLsCwRQxHEhRfavHV",
        "H/WfzL8JprQoAQo1yrhEmHYplcQjzCsYWa8bQmzK6NG41CUWOljpaxAaxII4VE8rzVn8pbRFlTbvLIfNKKXJ9a2P5GLylvgFWJdHp5us",
        "+UdBb+4U3VO73Z7+c4vJW8IVUn1+rn6zIB0Nf35CrJey+7D69+y326heR5pklYQ5pIY1PBXUMAp8vU7cD09nbw2q/t13WHxf7I9AXLo9",
        "E02Sa1RLUsDuDmvjAB+1eI5Hn5OVRDVbm9mv57i8hbwxUzb1aBXMojUaUBUSR3dLTyAukkZzwYCy725nZkEvHVOIAO4y4T4Zt41/4LfZ",
        "1wkxPMOfWSMEdlmHnanaLf8A2hA8XWv/AFN/c66cG5GkYWvjqKx7XAOa4SQua4EXBBEFiCOBC4NT+InZzbxbi9VW9zldR+4mjVrWyCpr",
        "HNeA5ro5YC1zXC4c07AggjMEcVoV5N1ftv3D6atcvN2IL6LK/Ml+uprpN8u1W8ywX+/v4ELo0+6On01sEtUbfSfF3oQoYdvHh+reu+hq",
        "4d3qQ/mT+mZ72nDneY/Y7/q2u3+XT+TNZma5fymbvrecX7rIPPGaheD8N9t/E8PqW/ukLjRfiFq8PVgoD0xz+2AutTb09ot5ph8tfwQV",
        "+Ddmip+rJUnpdH3oglJ8ZfeFPZdu3xfo6zfi7k9ZfxMxc+UlvvdSL823c4vGnsT/AGVxvnD1i1thQf8AOf2wlql3c7TbznD5K/hAqdPv",
        "DV0/VjgPS1/ekC0UUXiC97fJepRheDyOhfMa4l2VbWkP8zqBsOgWud9t2CXc/Zgntt7fcW8MunS6pqNU1zqmKCIHJrQyRr+k4pDYcwtc",
        "8enV9NqHaBfZ4f7r/BCh3eLfik0WRlNoroa6QWdNO921pmgjKOMwuZtH8C5wdhZ1c3E4evLONR8r4ccmuWbMl5nneQzCMFmCrZUELaQF",
        "Rd2Ylrm9jYMFuR8Lb02d+fD9RS1Vs7LfPHb5P1r5UPNTfHYX+j+m6dW7qYvrnrPoqoDeiuH5dN6WT31f/9k=",
    ]
}
