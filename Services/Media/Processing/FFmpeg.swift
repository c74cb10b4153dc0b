import Foundation
import ServiceHTTP
import Synchronization

/// ffmpeg, when the machine has it (`media.ffmpeg`; found on `PATH` by default): a poster
/// frame for each video, and a copy of the video without its metadata (phones write the
/// place a clip was shot into the container). Without ffmpeg, videos get neither; their
/// container facts still come from Pinhole's own ISO-BMFF reader.
struct FFmpeg: Sendable {
    let executable: URL
    /// How long one run may take before it is killed.
    var timeLimit: Duration = .seconds(60)

    /// The ffmpeg to use: `setting` is a path, a name to look up on `PATH`, or `off`.
    static func locate(_ setting: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> FFmpeg? {
        guard setting != "off", !setting.isEmpty else { return nil }
        if setting.contains("/") {
            return FileManager.default.isExecutableFile(atPath: setting)
                ? FFmpeg(executable: URL(fileURLWithPath: setting)) : nil
        }
        for folder in (path ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(setting)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return FFmpeg(executable: candidate) }
        }
        return nil
    }

    /// The first frame of `video` as a JPEG at `output`. A video ffmpeg cannot decode is a
    /// ``MediaRejection``.
    func posterFrame(of video: URL, to output: URL) async throws {
        try await run(
            [
                "-i", video.path, "-map", "0:v:0", "-frames:v", "1", "-an", "-f", "image2", "-c:v", "mjpeg", "-q:v",
                "3",
                output.path,
            ],
            failure: "the video's first frame cannot be decoded")
        guard (try? FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int) ?? 0 > 0 else {
            throw MediaRejection(reason: "the video has no frame to show")
        }
    }

    /// `video` without container metadata (no location, no device), streams copied, not
    /// re-encoded, as `format` (`mp4` or `mov`).
    func withoutMetadata(_ video: URL, format: String, to output: URL) async throws {
        try await run(
            [
                "-i", video.path, "-map", "0:v", "-map", "0:a?", "-c", "copy", "-map_metadata", "-1",
                "-map_chapters", "-1", "-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact",
                "-movflags", "+faststart", "-f", format, output.path,
            ],
            failure: "the video cannot be rewritten")
    }

    private func run(_ arguments: [String], failure: String) async throws {
        let lines = Mutex<[String]>([])
        let child = try ChildProcess(
            name: "ffmpeg", executable: executable,
            arguments: ["-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + arguments,
            environment: ["PATH": "/usr/bin:/bin"],
            onLine: { line in lines.withLock { if $0.count < 5 { $0.append(line) } } })
        let limit = timeLimit
        let watchdog = Task {
            try await Task.sleep(for: limit)
            child.send(SIGKILL)
        }
        let status = await child.waitForExit()
        watchdog.cancel()
        guard status == 0 else {
            let detail = lines.withLock { $0.first } ?? "exit status \(status)"
            throw MediaRejection(reason: "\(failure) (\(detail))")
        }
    }
}
