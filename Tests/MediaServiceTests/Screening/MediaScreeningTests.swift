import AsyncHTTPClient
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceHTTP
import Synchronization
import TestSupport
import Testing

@testable import MediaService

/// Screening: every new photo is scored; what scores at the threshold is held for a moderator
/// (only its owner reads it, moderation hears `media.held`), then released or removed.
@Suite struct MediaScreeningTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"

    func upload(_ client: some TestClientProtocol, _ bytes: Data, token: String) async throws -> MediaObject {
        let response = try await client.execute(
            uri: "/v1/media", method: .post,
            headers: [.authorization: "Bearer \(token)", .contentType: "image/jpeg"], body: ByteBuffer(bytes: bytes))
        #expect(response.status == .created)
        return try response.json(MediaObject.self)
    }

    @Test func aBlocklistedPhotoIsHeldUntilAModeratorReleasesOrRemovesIt() async throws {
        let (held, removed, fine) = (TestImages.jpeg(seed: 71), TestImages.jpeg(seed: 72), TestImages.jpeg(seed: 73))
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("blocklist-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: list) }
        let digests = [held, removed].map { Hex.encode(SHA256.hash(data: $0)) }
        try Data("# known bad\n\(digests[0])\n\(digests[1].uppercased())  # same, upper case\n".utf8).write(to: list)
        try await TestMedia.withParts(["media.screening.blocklistFile": list.path]) { harness, processor, client in
            let token = try await harness.token(for: Self.alice)
            let photo = try await upload(client, held, token: token)
            #expect(photo.status == .held)
            #expect(
                try harness.outboxEvents(MediaHeld.self) == [
                    MediaHeld(mediaId: photo.id, ownerId: Self.alice, score: 1, labels: ["blocklisted"])
                ])
            #expect(try await upload(client, fine, token: token).status == .ready)
            #expect(try harness.outboxEvents(MediaHeld.self).count == 1)

            // Feed shows it in a public post: still only Alice reads it, and feed waits.
            try await TestMedia.attach(photo.id, owner: Self.alice, store: processor.store)
            let bob = try await harness.token(for: Self.bob)
            #expect(try await client.get("/v1/media/\(photo.id)", token: bob).status == .notFound)
            #expect(try await client.get("/v1/media/\(photo.id)", token: token).status == .ok)
            #expect(try harness.outboxEvents(MediaReady.self).isEmpty)

            // A moderator releases it: ready, feed hears, Bob reads it.
            try await processor.store.database.write { db in
                try MediaStore.release(
                    ContentRestored(targetType: .media, targetId: photo.id), outbox: processor.store.outbox, in: db)
            }
            #expect(try harness.outboxEvents(MediaReady.self) == [MediaReady(mediaId: photo.id, ownerId: Self.alice)])
            #expect(try await client.get("/v1/media/\(photo.id)", token: bob).status == .ok)

            // Another is removed: still held, its owner told why, nobody else reads it.
            let other = try await upload(client, removed, token: token)
            #expect(other.status == .held)
            try await TestMedia.attach(other.id, owner: Self.alice, store: processor.store)
            try await processor.store.database.write { db in
                try MediaStore.remove(
                    ContentRemoved(
                        targetType: .media, targetId: other.id, ownerId: Self.alice, actionId: "a", reason: "abuse"),
                    in: db)
            }
            let after = try await client.get("/v1/media/\(other.id)", token: token).json(MediaObject.self)
            #expect(after.status == .held && after.rejectedReason == MediaStore.removedReason)
            #expect(try await client.get("/v1/media/\(other.id)/content", token: bob).status == .notFound)
            #expect(try await client.get("/v1/media/\(other.id)/content", token: token).status == .ok)

            // An appeal reverses the removal: released as if never removed.
            try await processor.store.database.write { db in
                try MediaStore.release(
                    ContentRestored(targetType: .media, targetId: other.id), outbox: processor.store.outbox, in: db)
            }
            let back = try await client.get("/v1/media/\(other.id)", token: token).json(MediaObject.self)
            #expect(back.status == .ready && back.rejectedReason == nil)
            #expect(try await client.get("/v1/media/\(other.id)/content", token: bob).status == .ok)
        }
    }

    @Test func anOperatorsClassifierScoresThePhotoFromItsThumbnail() async throws {
        let answer = Mutex<(status: Int, score: Double)>((200, 0.9))
        let seen = Mutex<[String]>([])
        let router = Router()
        router.post("/classify") { request, context -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let sent = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
            let thumbnail = (sent?["thumbnail"] as? String).flatMap { Data(base64Encoded: $0) }
            seen.withLock { $0.append(thumbnail?.prefix(2) == Data([0xFF, 0xD8]) ? "jpeg" : "none") }
            let (status, score) = answer.withLock { $0 }
            return Response(
                status: .init(code: status), headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"score":\#(score),"labels":["nudity"]}"#)))
        }
        let port = try FreePort.next()
        let classifier = try await RunningApplication.start(
            Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
                logger: .test("fake")))
        _ = await eventually {
            (try? await HTTPClient.shared.call(.GET, "http://127.0.0.1:\(port)/classify")) != nil
        }
        let config = [
            "media.screening.classifier": "http", "media.screening.url": "http://127.0.0.1:\(port)/classify",
            "media.screening.holdThreshold": "0.85",
        ]
        try await TestMedia.withParts(config) { harness, _, client in
            let token = try await harness.token(for: Self.alice)
            let flagged = try await upload(client, TestImages.jpeg(seed: 81), token: token)
            #expect(flagged.status == .held)
            #expect(try harness.outboxEvents(MediaHeld.self).map(\.labels) == [["nudity"]])
            answer.withLock { $0.score = 0.8 }
            #expect(try await upload(client, TestImages.jpeg(seed: 82), token: token).status == .ready)
            // A classifier that fails holds what it could not score: nothing goes out unscreened.
            answer.withLock { $0.status = 500 }
            #expect(try await upload(client, TestImages.jpeg(seed: 83), token: token).status == .held)
            #expect(try harness.outboxEvents(MediaHeld.self).last?.labels == ["classifier_unavailable"])
            #expect(seen.withLock { $0 }.suffix(3) == ["jpeg", "jpeg", "jpeg"])
        }
        await classifier.stop()
    }
}
