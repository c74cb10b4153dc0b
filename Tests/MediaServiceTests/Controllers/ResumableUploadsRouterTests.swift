import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceHTTP
import TestSupport
import Testing

@testable import MediaService

/// The IETF resumable uploads draft at `/v1/resumable-uploads`, in process: the header rules of
/// each interop version, and the same limits, owners and records as tus. (The `104` needs the
/// real server: the stack test reads it through the gateway.)
@Suite struct ResumableUploadsRouterTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"

    static func header(_ name: String) -> HTTPField.Name { HTTPField.Name(name)! }

    func send(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, token: String,
        _ fields: [String: String], body: Data? = nil
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.authorization: "Bearer \(token)"]
        for (name, value) in fields { headers[Self.header(name)] = value }
        return try await client.execute(
            uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
    }

    static func code(_ response: TestResponse) -> String? {
        try? JSONCoding.decoder().decode(ErrorEnvelope.self, from: Data(buffer: response.body)).error.code.rawValue
    }

    @Test func version3UploadsInTwoPartsAndBecomesMedia() async throws {
        try await TestMedia.withRouter { harness, client in
            let token = try await harness.token(for: Self.alice)
            let photo = TestImages.jpeg(seed: 5, size: 100_000)
            let first = try await send(
                client, .post, "/v1/resumable-uploads?purpose=post", token: token,
                [
                    "upload-draft-interop-version": "3", "upload-incomplete": "?1", "content-type": "image/jpeg",
                    "upload-length": String(photo.count),
                ], body: photo.prefix(40_000))
            #expect(first.status == .created)
            #expect(first.headers[Self.header("upload-incomplete")] == "?1")
            #expect(first.headers[Self.header("upload-offset")] == "40000")
            #expect(first.headers[Self.header("upload-draft-interop-version")] == "3")
            let location = try #require(first.headers[.location])

            let asked = try await send(client, .head, location, token: token, ["upload-draft-interop-version": "3"])
            #expect(asked.status == .noContent && asked.headers[.cacheControl] == "no-store")
            #expect(asked.headers[Self.header("upload-offset")] == "40000")

            // Another offset than the durable one is 409, naming it.
            let wrong = try await send(
                client, .patch, location, token: token,
                ["upload-draft-interop-version": "3", "upload-offset": "30000", "upload-incomplete": "?0"],
                body: photo.dropFirst(30_000))
            #expect(wrong.status == .conflict && wrong.headers[Self.header("upload-offset")] == "40000")
            // A completion whose bytes do not end the upload is refused before any is kept.
            let short = try await send(
                client, .patch, location, token: token,
                ["upload-draft-interop-version": "3", "upload-offset": "40000", "upload-incomplete": "?0"],
                body: photo.dropFirst(40_000).dropLast(10))
            #expect(short.status == .badRequest && Self.code(short) == "VALIDATION_FAILED")

            let rest = try await send(
                client, .patch, location, token: token,
                ["upload-draft-interop-version": "3", "upload-offset": "40000", "upload-incomplete": "?0"],
                body: photo.dropFirst(40_000))
            #expect(rest.status == .ok)
            #expect(rest.headers[Self.header("upload-incomplete")] == "?0")
            let status = try JSONCoding.decoder().decode(UploadStatus.self, from: Data(buffer: rest.body))
            #expect(status.offset == photo.count && status.mediaId != nil)
            #expect(rest.headers[Self.header("pinhole-media-id")] == status.mediaId)
            // The same record tus reads.
            let tus = try await send(client, .get, "/v1/uploads/\(status.id)", token: token, [:])
            #expect(
                try JSONCoding.decoder().decode(UploadStatus.self, from: Data(buffer: tus.body)).mediaId
                    == status.mediaId)
        }
    }

    @Test func eachRequestStatesWhatTheDraftNeeds() async throws {
        try await TestMedia.withRouter { harness, client in
            let token = try await harness.token(for: Self.alice)
            let photo = TestImages.jpeg(seed: 6, size: 10_000)
            let cases: [([String: String], String, HTTPResponse.Status)] = [
                ([:], "/v1/resumable-uploads", .badRequest),  // no interop version
                (["upload-draft-interop-version": "4", "upload-complete": "?1"], "/v1/resumable-uploads", .badRequest),
                (["upload-draft-interop-version": "6"], "/v1/resumable-uploads", .badRequest),  // complete or not?
                (
                    ["upload-draft-interop-version": "6", "upload-complete": "yes"], "/v1/resumable-uploads",
                    .badRequest
                ),
                // Unfinished and no Upload-Length: the size is unknown.
                (["upload-draft-interop-version": "6", "upload-complete": "?0"], "/v1/resumable-uploads", .badRequest),
                (
                    ["upload-draft-interop-version": "6", "upload-complete": "?1", "upload-length": "5"],
                    "/v1/resumable-uploads", .badRequest
                ),
                (
                    ["upload-draft-interop-version": "6", "upload-complete": "?1", "upload-offset": "3"],
                    "/v1/resumable-uploads", .badRequest
                ),
                (
                    ["upload-draft-interop-version": "6", "upload-complete": "?1"],
                    "/v1/resumable-uploads?purpose=story",
                    .badRequest
                ),
                // The bytes are not the declared type: refused, nothing kept.
                (
                    ["upload-draft-interop-version": "6", "upload-complete": "?1", "content-type": "video/mp4"],
                    "/v1/resumable-uploads", .unsupportedMediaType
                ),
            ]
            for (fields, uri, expected) in cases {
                var fields = fields
                if fields["content-type"] == nil { fields["content-type"] = "image/jpeg" }
                let answer = try await send(client, .post, uri, token: token, fields, body: photo)
                #expect(answer.status == expected, "\(fields) \(uri): \(String(buffer: answer.body))")
            }
            // Too large for an avatar: 413 before a byte is written.
            let large = try await send(
                client, .post, "/v1/resumable-uploads?purpose=avatar", token: token,
                [
                    "upload-draft-interop-version": "6", "upload-complete": "?0", "content-type": "image/jpeg",
                    "upload-length": String(200 << 20),
                ])
            #expect(large.status == .contentTooLarge && Self.code(large) == "PAYLOAD_TOO_LARGE")
        }
    }

    @Test func uploadsAreTheOwnersAndEndWhenCancelled() async throws {
        try await TestMedia.withRouter { harness, client in
            let alice = try await harness.token(for: Self.alice)
            let bob = try await harness.token(for: Self.bob)
            let photo = TestImages.jpeg(seed: 7, size: 10_000)
            let started = try await send(
                client, .post, "/v1/resumable-uploads", token: alice,
                [
                    "upload-draft-interop-version": "5", "upload-complete": "?0", "content-type": "image/jpeg",
                    "upload-length": String(photo.count),
                ], body: photo.prefix(100))
            #expect(started.status == .created && started.headers[Self.header("upload-complete")] == "?0")
            let location = try #require(started.headers[.location])
            for method in [HTTPRequest.Method.head, .delete] {
                let answer = try await send(client, method, location, token: bob, ["upload-draft-interop-version": "5"])
                #expect(answer.status == .notFound, "\(method)")
            }
            let stranger = try await send(
                client, .patch, location, token: bob,
                ["upload-draft-interop-version": "5", "upload-offset": "100"], body: photo.dropFirst(100))
            #expect(stranger.status == .notFound)
            let cancelled = try await send(
                client, .delete, location, token: alice, ["upload-draft-interop-version": "5"])
            #expect(cancelled.status == .noContent)
            let gone = try await send(client, .head, location, token: alice, ["upload-draft-interop-version": "5"])
            #expect(gone.status == .notFound)
        }
    }
}
