import Foundation
import ServiceHTTP

/// Small but well-formed ISO-BMFF files (MP4 or QuickTime), box by box: `ftyp`, a `moov` with
/// `mvhd` and a video track (`tkhd`, `mdia/hdlr` `vide`, `minf/stbl/stsd` with one sample
/// entry) and optionally an audio track, then an `mdat` of varied bytes. Nothing decodes;
/// the container says what it is.
public enum TestVideos {
    /// A real `seconds`-long 160×120 H.264 video (ffmpeg's test pattern) in an MP4 or, with
    /// `container: "mov"`, a QuickTime file, encoded by the `ffmpeg` on `PATH`, whose container
    /// says where it was shot (as a phone's would).
    public static func encoded(seconds: Double = 15, container: String = "mp4") async throws -> Data {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString + ".mp4")
        defer { try? FileManager.default.removeItem(at: output) }
        let errors = LineCollector()
        let ffmpeg = try ChildProcess(
            name: "ffmpeg", executable: URL(fileURLWithPath: "/usr/bin/env"),
            arguments: [
                "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                "testsrc=duration=\(seconds):size=160x120:rate=10", "-c:v", "libx264", "-preset", "ultrafast",
                "-pix_fmt", "yuv420p", "-metadata", "location=+52.5200+013.4050/", "-movflags", "use_metadata_tags",
                "-f", container, output.path,
            ],
            environment: ProcessInfo.processInfo.environment, onLine: errors.append)
        guard await ffmpeg.waitForExit() == 0 else { throw EncodingFailed(output: errors.lines) }
        return try Data(contentsOf: output)
    }

    /// ffmpeg did not encode the video.
    public struct EncodingFailed: Error {
        public let output: [String]
    }

    public static func mp4(
        duration: Double = 15, width: Int = 1080, height: Int = 1920, codec: String = "avc1", audio: Bool = true,
        payload: Int = 4096, brand: String = "isom", seed: UInt64 = 1
    ) -> Data {
        let timescale: UInt32 = 600
        let ticks = UInt32((duration * Double(timescale)).rounded())
        var file = box("ftyp", Data(brand.utf8) + be32(512) + Data("isomiso2avc1mp41".utf8))
        var tracks = track(handler: "vide", codec: codec, width: width, height: height, ticks: ticks)
        if audio { tracks += track(handler: "soun", codec: "mp4a", width: 0, height: 0, ticks: ticks) }
        file += box("moov", mvhd(timescale: timescale, ticks: ticks) + tracks)
        var bytes = Data(capacity: payload)
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        while bytes.count < payload {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            withUnsafeBytes(of: state) { bytes.append(contentsOf: $0) }
        }
        file += box("mdat", bytes.prefix(payload))
        return file
    }

    static func mvhd(timescale: UInt32, ticks: UInt32) -> Data {
        // version 0: flags, creation, modification, timescale, duration, then rate … next id.
        var body = be32(0) + be32(0) + be32(0) + be32(timescale) + be32(ticks)
        body += be32(0x0001_0000) + Data([0x01, 0x00]) + Data(count: 10) + Data(count: 36) + Data(count: 24) + be32(3)
        return box("mvhd", body)
    }

    static func track(handler: String, codec: String, width: Int, height: Int, ticks: UInt32) -> Data {
        // tkhd version 0: flags, creation, modification, track id, reserved, duration, reserved,
        // layer, group, volume, reserved, matrix, width and height in 16.16.
        var tkhd = be32(3) + be32(0) + be32(0) + be32(1) + be32(0) + be32(ticks) + Data(count: 8)
        tkhd += Data(count: 8) + Data(count: 36) + be32(UInt32(width) << 16) + be32(UInt32(height) << 16)
        let hdlr = box("hdlr", be32(0) + be32(0) + Data(handler.utf8) + Data(count: 12) + Data("pinhole\0".utf8))
        let entry = box(codec, Data(count: 78))
        let stsd = box("stsd", be32(0) + be32(1) + entry)
        let minf = box("minf", box("stbl", stsd))
        return box("trak", box("tkhd", tkhd) + box("mdia", hdlr + minf))
    }

    static func box(_ type: String, _ body: Data) -> Data {
        be32(UInt32(body.count + 8)) + Data(type.utf8) + body
    }

    static func be32(_ value: UInt32) -> Data {
        withUnsafeBytes(of: value.bigEndian) { Data($0) }
    }
}
