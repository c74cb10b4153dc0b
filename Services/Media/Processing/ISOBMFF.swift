import Foundation

/// What an MP4 or QuickTime file says about itself, read from its ISO-BMFF boxes
/// (ISO/IEC 14496-12): `moov/mvhd` for the duration, the video track's `tkhd` for the
/// dimensions, each track's `stsd` for its codec. No frame is decoded.
struct VideoInfo: Sendable, Equatable {
    var duration: Double
    var width: Int
    var height: Int
    var videoCodec: String?
    var audioCodec: String?
}

enum ISOBMFF {
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    /// The largest `moov` read into memory; real ones are kilobytes to a few megabytes.
    static let maxMovieBox = 32 << 20

    /// Walks every top-level box to the end of the file (a box running past the end is a
    /// truncated file), then parses `moov`, wherever it is.
    static func videoInfo(of file: URL) throws -> VideoInfo {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        var offset: UInt64 = 0
        var movieBox: (offset: UInt64, length: UInt64)?
        while offset + 8 <= size {
            try handle.seek(toOffset: offset)
            let header = try read(handle, 16)
            guard header.count >= 8 else { throw Malformed(description: "a box header is cut off") }
            let declared = UInt64(be32(header, 0))
            let type = fourCC(header, 4)
            var length = declared
            var headerLength: UInt64 = 8
            if declared == 1 {
                guard header.count >= 16 else { throw Malformed(description: "a box header is cut off") }
                length = be64(header, 8)
                headerLength = 16
            } else if declared == 0 {
                length = size - offset
            }
            guard length >= headerLength, offset + length <= size else {
                throw Malformed(description: "box `\(type)` runs past the end of the file (truncated?)")
            }
            if type == "moov" {
                guard length - headerLength <= UInt64(maxMovieBox) else {
                    throw Malformed(description: "the movie header is implausibly large")
                }
                movieBox = (offset + headerLength, length - headerLength)
            }
            offset += length
        }
        guard offset == size else { throw Malformed(description: "the file ends inside a box header (truncated?)") }
        guard let movieBox else { throw Malformed(description: "no `moov` box: not a complete MP4/QuickTime file") }
        try handle.seek(toOffset: movieBox.offset)
        return try movie(try read(handle, Int(movieBox.length)))
    }

    // MARK: - Boxes

    /// The child boxes of a container's body, as (type, body) pairs.
    static func children(_ data: Data) throws -> [(String, Data)] {
        var boxes: [(String, Data)] = []
        var offset = data.startIndex
        while offset + 8 <= data.endIndex {
            var length = Int(be32(data, offset - data.startIndex))
            let type = fourCC(data, offset - data.startIndex + 4)
            var header = 8
            if length == 1 {
                guard offset + 16 <= data.endIndex else { throw Malformed(description: "a box header is cut off") }
                length = Int(clamping: be64(data, offset - data.startIndex + 8))
                header = 16
            } else if length == 0 {
                length = data.endIndex - offset
            }
            guard length >= header, offset + length <= data.endIndex else {
                throw Malformed(description: "box `\(type)` runs past its container")
            }
            boxes.append((type, data[(offset + header)..<(offset + length)]))
            offset += length
        }
        return boxes
    }

    static func movie(_ moov: Data) throws -> VideoInfo {
        let boxes = try children(moov)
        guard let mvhd = boxes.first(where: { $0.0 == "mvhd" })?.1 else {
            throw Malformed(description: "no `mvhd` box")
        }
        let (timescale, duration) = try movieHeader(mvhd)
        guard timescale > 0 else { throw Malformed(description: "a zero timescale") }
        var info = VideoInfo(duration: Double(duration) / Double(timescale), width: 0, height: 0)
        for (type, trak) in boxes where type == "trak" {
            let parts = try children(trak)
            guard let mdia = parts.first(where: { $0.0 == "mdia" })?.1 else { continue }
            let media = try children(mdia)
            let handler = media.first(where: { $0.0 == "hdlr" }).map { fourCC($0.1, 8) }
            let codec = try sampleEntry(media)
            if handler == "vide", info.videoCodec == nil {
                info.videoCodec = codec
                if let tkhd = parts.first(where: { $0.0 == "tkhd" })?.1 {
                    (info.width, info.height) = try trackDimensions(tkhd)
                }
            } else if handler == "soun", info.audioCodec == nil {
                info.audioCodec = codec
            }
        }
        guard info.videoCodec != nil else { throw Malformed(description: "no video track") }
        return info
    }

    static func movieHeader(_ box: Data) throws -> (UInt32, UInt64) {
        guard box.count >= 4 else { throw Malformed(description: "`mvhd` is cut off") }
        if box[box.startIndex] == 1 {
            guard box.count >= 32 else { throw Malformed(description: "`mvhd` is cut off") }
            return (be32(box, 20), be64(box, 24))
        }
        guard box.count >= 20 else { throw Malformed(description: "`mvhd` is cut off") }
        return (be32(box, 12), UInt64(be32(box, 16)))
    }

    static func trackDimensions(_ box: Data) throws -> (Int, Int) {
        guard box.count >= 4 else { throw Malformed(description: "`tkhd` is cut off") }
        let start = box[box.startIndex] == 1 ? 88 : 76
        guard box.count >= start + 8 else { throw Malformed(description: "`tkhd` is cut off") }
        return (Int(be32(box, start) >> 16), Int(be32(box, start + 4) >> 16))
    }

    /// The format of the first sample entry of `minf/stbl/stsd`.
    static func sampleEntry(_ media: [(String, Data)]) throws -> String? {
        guard let minf = media.first(where: { $0.0 == "minf" })?.1,
            let stbl = try children(minf).first(where: { $0.0 == "stbl" })?.1,
            let stsd = try children(stbl).first(where: { $0.0 == "stsd" })?.1, stsd.count >= 16
        else { return nil }
        return fourCC(stsd, 12)
    }

    // MARK: - Bytes

    static func read(_ handle: FileHandle, _ count: Int) throws -> Data {
        try handle.read(upToCount: count) ?? Data()
    }

    static func be32(_ data: Data, _ offset: Int) -> UInt32 {
        let base = data.startIndex + offset
        return data[base..<(base + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func be64(_ data: Data, _ offset: Int) -> UInt64 {
        let base = data.startIndex + offset
        return data[base..<(base + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func fourCC(_ data: Data, _ offset: Int) -> String {
        let base = data.startIndex + offset
        guard base + 4 <= data.endIndex else { return "" }
        return String(decoding: data[base..<(base + 4)], as: UTF8.self)
    }
}
