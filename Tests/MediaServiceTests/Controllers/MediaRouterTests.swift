import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceHTTP
import TestSupport
import Testing

@testable import MediaService

@Suite struct MediaRouterTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"

    func upload(
        _ client: some TestClientProtocol, _ bytes: Data, type: String?, token: String
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.authorization: "Bearer \(token)"]
        if let type { headers[.contentType] = type }
        return try await client.execute(
            uri: "/v1/media", method: .post, headers: headers, body: ByteBuffer(bytes: bytes))
    }

    /// Files in the blob store, temporary ones included.
    func storedFiles(_ harness: ServiceHarness) -> [String] {
        let root = harness.directory.url.appendingPathComponent("media/blobs")
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        return (enumerator?.allObjects as? [URL] ?? []).filter { !$0.hasDirectoryPath }.map(\.lastPathComponent)
    }

    @Test func theTypeComesFromTheBytesAndTheHashIsRecorded() async throws {
        try await TestMedia.withRouter { harness, client in
            let token = try await harness.token(for: Self.alice)
            for (bytes, claim, type) in [
                (TestImages.jpeg(), "image/jpeg", "image/jpeg"), (TestImages.png(), nil, "image/png"),
                (try TestMedia.heic(), "image/heif", "image/heic"),
                (TestImages.jpeg(seed: 2), "application/octet-stream", "image/jpeg"),
            ] as [(Data, String?, String)] {
                let response = try await upload(client, bytes, type: claim, token: token)
                #expect(response.status == .created)
                let media = try response.json(MediaObject.self)
                #expect(media.contentType == type)
                #expect(media.sha256 == Hex.encode(SHA256.hash(data: bytes)))
                #expect(media.byteSize == bytes.count)
                #expect(media.visibility == .private)
                #expect(media.status == .ready)
            }
        }
    }

    @Test func refusedUploadsLeaveNothingBehind() async throws {
        try await TestMedia.withRouter(["media.maxPhotoBytes": "4096"]) { harness, client in
            let token = try await harness.token(for: Self.alice)
            let cases: [(Data, String?, HTTPResponse.Status, ErrorCode)] = [
                (TestImages.png(), "image/jpeg", .unsupportedMediaType, .unsupportedMediaType),
                (Data("hello, this is not an image at all".utf8), nil, .unsupportedMediaType, .unsupportedMediaType),
                (TestImages.jpeg(), "video/mp4", .unsupportedMediaType, .unsupportedMediaType),
                (TestImages.jpeg(size: 8000), "image/jpeg", .contentTooLarge, .payloadTooLarge),
                (Data(), "image/jpeg", .badRequest, .validationFailed),
                // The right signature, but not a picture libvips can decode.
                (TestImages.jpeg(size: 100).prefix(900), "image/jpeg", .unprocessableContent, .mediaRejected),
                (TestImages.heicSignatureOnly(), nil, .unprocessableContent, .mediaRejected),
                (TestImages.pixelFlood(), "image/png", .unprocessableContent, .mediaRejected),
            ]
            for (bytes, claim, status, code) in cases {
                let response = try await upload(client, bytes, type: claim, token: token)
                #expect(response.status == status, "\(claim ?? "-") \(bytes.count) bytes")
                #expect(response.error?.code == code)
            }
            #expect(storedFiles(harness).isEmpty)
            let count = try await harness.database().read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM media")
            }
            #expect(count == 0)
        }
    }

    @Test func mediaIsPrivateToItsOwnerUntilReferenced() async throws {
        try await TestMedia.withParts { harness, processor, client in
            let aliceToken = try await harness.token(for: Self.alice)
            let bobToken = try await harness.token(for: Self.bob)
            let bytes = TestImages.jpeg(seed: 9)
            let media = try await upload(client, bytes, type: "image/jpeg", token: aliceToken).json(MediaObject.self)
            #expect(try await client.get("/v1/media/\(media.id)", token: bobToken).status == .notFound)
            #expect(try await client.get("/v1/media/\(media.id)/content", token: bobToken).status == .notFound)
            #expect(try await client.get("/v1/media/not-an-id", token: aliceToken).status == .notFound)
            #expect(try await client.get("/v1/media/\(media.id)").status == .unauthorized)

            let content = try await client.get("/v1/media/\(media.id)/content", token: aliceToken)
            #expect(content.status == .ok)
            #expect(Data(content.body.readableBytesView) == bytes)
            #expect(content.headers[.contentType] == "image/jpeg")
            let etag = try #require(content.headers[.eTag])
            let again = try await client.execute(
                uri: "/v1/media/\(media.id)/content", method: .get,
                headers: [.authorization: "Bearer \(aliceToken)", .ifNoneMatch: etag])
            #expect(again.status == .notModified)

            // What a `media.attached` event does, applied the way the inbox applies it.
            try await TestMedia.attach(media.id, owner: Self.bob, store: processor.store)
            #expect(try await client.get("/v1/media/\(media.id)", token: bobToken).status == .notFound)
            // A snap's partner, named a reader, may read it (and get a presigned URL); it stays private.
            try await TestMedia.attach(
                media.id, owner: Self.alice, source: .streak, visibility: .private, readers: [Self.bob],
                store: processor.store)
            let shared = try await client.get("/v1/media/\(media.id)", token: bobToken).json(MediaObject.self)
            #expect(shared.visibility == .private)
            #expect(try await client.get("/v1/media/\(media.id)/content", token: bobToken).status == .ok)
            // The owner's link works a day; a reader's an hour (their access can end).
            let owners = try await client.get("/v1/media/\(media.id)/url", token: aliceToken).json(PresignedURL.self)
            let readers = try await client.get("/v1/media/\(media.id)/url", token: bobToken).json(PresignedURL.self)
            #expect(abs(owners.expiresAt.timeIntervalSince(readers.expiresAt) - (86_400 - 3600)) < 60)
            let carol = try await harness.token(for: "00000000-0000-4000-8000-00000000000c")
            #expect(try await client.get("/v1/media/\(media.id)/url", token: carol).status == .notFound)

            // Their streak ends: Bob no longer reads what streak shared, only what another
            // service named him a reader of.
            let other = try await upload(client, TestImages.jpeg(seed: 10), type: "image/jpeg", token: aliceToken)
                .json(MediaObject.self)
            try await TestMedia.attach(
                other.id, owner: Self.alice, source: .feed, visibility: .private, readers: [Self.bob],
                store: processor.store)
            try await TestMedia.endSharing(between: [Self.alice, Self.bob], source: .streak, store: processor.store)
            #expect(try await client.get("/v1/media/\(media.id)/content", token: bobToken).status == .notFound)
            #expect(try await client.get("/v1/media/\(media.id)/url", token: bobToken).status == .notFound)
            #expect(try await client.get("/v1/media/\(other.id)/content", token: bobToken).status == .ok)
            #expect(try await client.get("/v1/media/\(media.id)", token: aliceToken).status == .ok)

            try await TestMedia.attach(media.id, owner: Self.alice, store: processor.store)
            #expect(
                try await client.get("/v1/media/\(media.id)", token: bobToken).json(MediaObject.self).visibility
                    == .public)
        }
    }

    @Test func aServiceWithdrawsOnlyTheOwnersObjectsItMade() async throws {
        try await TestMedia.withParts { harness, processor, client in
            let aliceToken = try await harness.token(for: Self.alice)
            var uploaded: [String] = []
            for seed: UInt8 in [11, 12] {
                uploaded.append(
                    try await upload(client, TestImages.jpeg(seed: seed), type: "image/jpeg", token: aliceToken)
                        .json(MediaObject.self).id)
            }
            let ids = uploaded
            // Streak had the first made (a share card); the second is Alice's own upload.
            try await processor.store.database.write { db in
                try MediaReferenceRecord(
                    mediaId: ids[0], service: "streak", referenceType: "share_card", referenceId: ids[0]
                ).insert(db)
            }
            func withdraw(owner: String, from source: ServiceName) async throws {
                let envelope = EventEnvelope(
                    id: UUID(), type: MediaWithdrawn.eventType, source: source, occurredAt: Date(),
                    payload: MediaWithdrawn(ownerId: owner, mediaIds: ids))
                try await processor.store.database.write { db in
                    try MediaStore.withdraw(envelope, blobs: processor.blobs, in: db)
                }
            }
            // Another owner named, or another service: nothing goes.
            try await withdraw(owner: Self.bob, from: .streak)
            try await withdraw(owner: Self.alice, from: .feed)
            #expect(try await client.get("/v1/media/\(ids[0])", token: aliceToken).status == .ok)
            try await withdraw(owner: Self.alice, from: .streak)
            #expect(try await client.get("/v1/media/\(ids[0])", token: aliceToken).status == .notFound)
            #expect(try await client.get("/v1/media/\(ids[1])/content", token: aliceToken).status == .ok)
        }
    }

    @Test func internalLookupsNeedAServiceCertificate() async throws {
        try await TestMedia.withRouter { harness, client in
            let response = try await client.get("/internal/media/\(Self.alice)")
            #expect(response.status == .forbidden)
            #expect(response.error?.code == .peerNotAllowed)
        }
    }
}
