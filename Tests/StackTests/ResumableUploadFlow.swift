import Contracts
import Crypto
import Foundation
import NIOHTTP1
import ServiceHTTP
import TestSupport
import Testing

/// The IETF resumable uploads draft through the gateway, from an outside peer that speaks it
/// (``ResumableUploadPeer``): in version 3 (iOS 17's), a photo whose connection drops after
/// 200 KB gets its `104` with the upload's URL first, tells its durable offset, takes the rest
/// and becomes the same media its bytes are; in version 6 (iOS 18's), a video in one request
/// gets its `104` and then its media; a cancelled upload is gone for both protocols.
struct ResumableUploadFlow {
    let flow: SliceFlow

    func peer(_ person: Person, version: String) throws -> ResumableUploadPeer {
        ResumableUploadPeer(
            port: flow.stack.ports[.gateway]!,
            tls: try TestHTTP.tlsConfiguration(dataDirectory: flow.stack.directory.url),
            token: person.token, version: version)
    }

    func run() async throws {
        let rui = try await flow.signUp("Rui")
        let photo = TestImages.jpeg(seed: 47, size: 600_000)
        let v3 = try peer(rui, version: "3")

        // The creation carries the whole photo, but the connection drops after 200 KB.
        let created = try await v3.send(
            .POST, "/v1/resumable-uploads?purpose=post",
            headers: [("content-type", "image/jpeg"), ("upload-incomplete", "?0")], body: photo, dropAfter: 200_000)
        let early = try #require(created.informational.first, "no 104 came through the gateway")
        #expect(early.status.code == 104 && created.informational.count == 1)
        #expect(early.headers.first(name: "upload-draft-interop-version") == "3")
        let location = try #require(early.headers.first(name: "location"))
        #expect(location.hasPrefix("/v1/resumable-uploads/"))
        #expect(created.answer == nil, "the connection was dropped before the answer")

        // The next launch asks how much was kept, and sends the rest.
        let asked = try await v3.send(.HEAD, location)
        #expect(asked.status == 204 && asked.header("upload-incomplete") == "?1")
        let offset = try #require(asked.header("upload-offset").flatMap { Int($0) })
        #expect(offset > 0 && offset <= 200_000, "kept \(offset) of the 200,000 bytes sent")
        let rest = try await v3.send(
            .PATCH, location,
            headers: [
                ("content-type", "application/offset+octet-stream"), ("upload-offset", String(offset)),
                ("upload-incomplete", "?0"),
            ],
            body: photo.dropFirst(offset))
        #expect(rest.status == 200, "\(String(decoding: rest.body, as: UTF8.self))")
        #expect(rest.header("upload-incomplete") == "?0" && rest.header("upload-offset") == String(photo.count))
        let status = try JSONCoding.decoder().decode(UploadStatus.self, from: rest.body)
        let mediaID = try #require(status.mediaId)
        #expect(rest.header("pinhole-media-id") == mediaID)
        // The same upload, read the tus way; the media is these bytes.
        let tusView = try await flow.call(.GET, "/v1/uploads/\(status.id)", as: rui).decode(UploadStatus.self)
        #expect(tusView.offset == photo.count && tusView.mediaId == mediaID)
        let media = try await flow.call(.GET, "/v1/media/\(mediaID)", as: rui).decode(MediaObject.self)
        #expect(media.sha256 == SHA256.hash(data: photo).map { String(format: "%02x", $0) }.joined())
        #expect(media.byteSize == photo.count)

        // Version 6 (iOS 18): a clip in one request; the 104 comes first, then the media.
        let clip = try await TestVideos.encoded(seconds: 2)
        let v6 = try peer(rui, version: "6")
        let whole = try await v6.send(
            .POST, "/v1/resumable-uploads?purpose=post",
            headers: [("content-type", "video/mp4"), ("upload-complete", "?1")],
            body: clip)
        #expect(whole.informational.map(\.status.code) == [104])
        #expect(
            whole.status == 201 && whole.header("upload-complete") == "?1",
            "\(String(decoding: whole.body, as: UTF8.self))")
        #expect(whole.header("pinhole-media-id") != nil)

        // Over HTTP/2 (URLSession's usual way) the 104 passes the gateway as well.
        let file = flow.stack.directory.url.appendingPathComponent("resumable-photo.jpg")
        try TestImages.jpeg(seed: 53, size: 20_000).write(to: file)
        let heads = try await Curl.heads([
            "--http2", "--cacert", flow.stack.directory.url.appendingPathComponent("pki/ca.crt").path,
            "-H", "authorization: Bearer \(rui.token)", "-H", "upload-draft-interop-version: 6", "-H",
            "upload-complete: ?1", "-H", "content-type: image/jpeg", "--data-binary", "@\(file.path)",
            flow.stack.url("/v1/resumable-uploads").replacingOccurrences(of: "127.0.0.1", with: "localhost"),
        ])
        let statuses = heads.filter { $0.hasPrefix("HTTP/") }
        #expect(statuses == ["HTTP/2 104", "HTTP/2 201"], "\(heads)")
        #expect(heads.contains { $0.lowercased().hasPrefix("location: /v1/resumable-uploads/") }, "\(heads)")

        // Cancelled before its end: both protocols forget it.
        let started = try await v6.send(
            .POST, "/v1/resumable-uploads?purpose=snap",
            headers: [
                ("content-type", "video/mp4"), ("upload-complete", "?0"),
                ("upload-length", String(clip.count)),
            ], body: clip.prefix(1000))
        #expect(
            started.status == 201 && started.header("upload-complete") == "?0"
                && started.header("upload-offset") == "1000")
        let cancelled = try #require(started.header("location"))
        #expect(try await v6.send(.DELETE, cancelled).status == 204)
        #expect(try await v6.send(.HEAD, cancelled).status == 404)
        let id = String(cancelled.split(separator: "/").last!)
        #expect(try await flow.call(.GET, "/v1/uploads/\(id)", as: rui).decode(UploadStatus.self).state == .terminated)
    }
}
