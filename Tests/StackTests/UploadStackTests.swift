import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import ServiceHTTP
import Synchronization
import TestSupport
import Testing

/// Resumable uploads through the gateway: a real tus client from outside the project (tuspy,
/// from PyPI) that is interrupted and resumes from its stored URL, and an upload whose media
/// process is SIGKILLed mid-PATCH and resumes from the durable offset.
@Suite(.serialized) struct UploadStackTests {
    @Test func tuspyAndAKilledMediaProcessBothEndWithTheSourceBytes() async throws {
        try await Stack.start(publicTLS: false).run(printingOnFailure: [.media, .gateway], lines: 400) {
            try await exercise($0)
        }
    }

    func exercise(_ stack: Stack) async throws {
        _ = try await stack.client.call(
            .POST, stack.url("/v1/auth/register"),
            json: RegisterRequest(email: "skater@example.com", password: "correct horse battery"))
        let token = try await stack.client.call(
            .POST, stack.url("/v1/auth/login"),
            json: LoginRequest(email: "skater@example.com", password: "correct horse battery")
        ).decode(TokenResponse.self).accessToken

        try await tuspy(stack, token: token)
        try await killedMidPatch(stack, token: token)
    }

    // MARK: - tuspy

    static let tuspyScript = #"""
        import json, sys
        from tusclient import client
        from tusclient.storage import filestorage
        url, token, path, storage_path = sys.argv[1:5]
        metadata = {"filename": "clip.jpg", "filetype": "image/jpeg", "purpose": "post"}
        def uploader():
            tus = client.TusClient(url, headers={"Authorization": "Bearer " + token})
            storage = filestorage.FileStorage(storage_path)
            return tus.uploader(path, chunk_size=256 * 1024, metadata=metadata, store_url=True, url_storage=storage)
        first = uploader()
        first.upload_chunk()
        first.upload_chunk()
        interrupted_at = first.offset
        # The app is killed: a new uploader finds the URL in storage and resumes from the server's offset.
        second = uploader()
        resumed_from = second.get_offset()
        second.upload()
        print(json.dumps({"url": first.url, "resumedUrl": second.url, "interruptedAt": interrupted_at,
                          "resumedFrom": resumed_from, "offset": second.offset}))
        """#

    func tuspy(_ stack: Stack, token: String) async throws {
        let work = stack.directory.url.appendingPathComponent("tuspy", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let photo = TestImages.jpeg(seed: 77, size: 1_000_000)
        let file = work.appendingPathComponent("clip.jpg")
        try photo.write(to: file)
        let output = LineCollector()
        let python = try ChildProcess(
            name: "tuspy", executable: URL(fileURLWithPath: "/usr/bin/env"),
            arguments: [
                "python3", "-c", Self.tuspyScript, stack.url("/v1/uploads"), token, file.path,
                work.appendingPathComponent("urls.json").path,
            ],
            environment: ProcessInfo.processInfo.environment, onLine: output.append)
        let status = await python.waitForExit()
        #expect(status == 0, "tuspy failed:\n\(output.lines.joined(separator: "\n"))")
        struct Result: Decodable {
            var url: String
            var resumedUrl: String
            var interruptedAt: Int
            var resumedFrom: Int
            var offset: Int
        }
        let line = try #require(output.lines.last { $0.hasPrefix("{") }, "\(output.lines)")
        let result = try JSONDecoder().decode(Result.self, from: Data(line.utf8))
        #expect(result.resumedUrl == result.url, "resumed the same upload")
        #expect(result.interruptedAt == 512 * 1024)
        #expect(result.resumedFrom == 512 * 1024)
        #expect(result.offset == photo.count)

        let path = try #require(URL(string: result.url)?.path)
        let upload = try await stack.client.call(.GET, stack.url(path), token: token).decode(UploadStatus.self)
        #expect(upload.state == .ready)
        let media = try await stack.client.call(.GET, stack.url("/v1/media/\(upload.mediaId ?? "")"), token: token)
            .decode(MediaObject.self)
        #expect(media.sha256 == Hex.encode(SHA256.hash(data: photo)))
    }

    // MARK: - Media killed mid-PATCH

    func killedMidPatch(_ stack: Stack, token: String) async throws {
        // A 24 MiB, 15-second challenge clip: a real MP4 container around varied bytes.
        let video = TestVideos.mp4(duration: 15, payload: 24 << 20, seed: 7)
        let metadata =
            "filetype \(Data("video/mp4".utf8).base64EncodedString()),purpose \(Data("challenge_clip".utf8).base64EncodedString())"
        let created = try await stack.client.call(
            .POST, stack.url("/v1/uploads"), token: token,
            headers: [("tus-resumable", "1.0.0"), ("upload-length", "\(video.count)"), ("upload-metadata", metadata)])
        #expect(created.status == 201)
        let location = try #require(created.header("location"))

        // Stream the whole file slowly; kill media as soon as its first checkpoint (8 MiB) is
        // durable, with most of the file still to come.
        let sent = SentBytes()
        let body = AsyncStream<ByteBuffer> { continuation in
            Task {
                var offset = 0
                while offset < video.count {
                    let end = min(offset + (256 << 10), video.count)
                    continuation.yield(ByteBuffer(bytes: video[offset..<end]))
                    offset = end
                    sent.count.store(offset, ordering: .relaxed)
                    try? await Task.sleep(for: .milliseconds(10))
                }
                continuation.finish()
            }
        }
        var request = HTTPClientRequest(url: stack.url(location))
        request.method = .PATCH
        request.headers.add(name: "authorization", value: "Bearer \(token)")
        request.headers.add(name: "tus-resumable", value: "1.0.0")
        request.headers.add(name: "upload-offset", value: "0")
        request.headers.add(name: "content-type", value: "application/offset+octet-stream")
        request.body = .stream(body, length: .known(Int64(video.count)))
        let patch = Task { try? await stack.client.execute(request, timeout: .seconds(60)) }
        let checkpointed = await eventually(timeout: .seconds(30), every: .milliseconds(20)) {
            let head = try? await stack.client.call(
                .HEAD, stack.url(location), token: token, headers: [("tus-resumable", "1.0.0")])
            return (head?.header("upload-offset").flatMap(Int.init) ?? 0) >= 8 << 20
        }
        #expect(checkpointed)
        #expect(sent.count.load(ordering: .relaxed) < video.count, "the file was still on its way")
        await stack.kill(.media)
        _ = await patch.value
        try stack.launch(.media)
        #expect(await stack.waitUntilReady(.media))

        // The durable offset survived the kill (checkpoints every 8 MiB), and resuming from it
        // ends with the source's SHA-256.
        let head = try await stack.client.call(
            .HEAD, stack.url(location), token: token, headers: [("tus-resumable", "1.0.0")])
        #expect(head.status == 200)
        let offset = try #require(head.header("upload-offset").flatMap(Int.init))
        #expect(offset >= 8 << 20, "offset \(offset)")
        #expect(offset < video.count)
        let rest = try await stack.client.call(
            .PATCH, stack.url(location), token: token, bytes: video[offset...],
            headers: [
                ("tus-resumable", "1.0.0"), ("upload-offset", "\(offset)"),
                ("content-type", "application/offset+octet-stream"),
            ])
        #expect(rest.status == 204, "\(rest.text)")
        let mediaID = try #require(rest.header("pinhole-media-id"))
        let media = try await stack.client.call(.GET, stack.url("/v1/media/\(mediaID)"), token: token)
            .decode(MediaObject.self)
        #expect(media.sha256 == Hex.encode(SHA256.hash(data: video)))
        #expect(media.contentType == "video/mp4")
    }
}

/// How far a streamed body has got.
final class SentBytes: Sendable {
    let count = Atomic<Int>(0)
}
