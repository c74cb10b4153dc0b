import Contracts
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceHTTP
import TestSupport
import Testing

@testable import MediaService

/// Media views through media's router: `GET /v1/media?ids=` answers the caller's media as
/// views, and their URLs serve the bytes with no token, cacheable until they expire; an
/// altered or expired URL is refused without a byte, and media nobody may see is not listed.
@Suite struct MediaViewsRouterTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"

    func upload(_ client: some TestClientProtocol, token: String, seed: UInt8 = 1) async throws -> MediaObject {
        try await client.execute(
            uri: "/v1/media", method: .post, headers: [.authorization: "Bearer \(token)", .contentType: "image/jpeg"],
            body: ByteBuffer(bytes: TestImages.jpeg(seed: seed))
        ).json(MediaObject.self)
    }

    func views(_ client: some TestClientProtocol, _ ids: [String], token: String) async throws -> [MediaView] {
        try await client.get("/v1/media?ids=\(ids.joined(separator: ","))", token: token).json(Page<MediaView>.self)
            .items
    }

    /// A URL's path and query, with `change` applied to its query items.
    func altered(_ url: String, _ change: (inout [URLQueryItem]) -> Void) -> String {
        var components = URLComponents(string: url)!
        var items = components.queryItems ?? []
        change(&items)
        components.queryItems = items
        return components.string!
    }

    @Test func aViewsURLsServeTheBytesWithNoTokenUntilTheyExpire() async throws {
        try await TestMedia.withRouter { harness, client in
            let alice = try await harness.token(for: Self.alice)
            let photo = try await upload(client, token: alice)
            let view = try #require(try await views(client, [photo.id], token: alice).first)
            #expect(view.id == photo.id && view.kind == .photo && view.status == .ready)
            #expect(view.width == 64 && view.height == 48 && view.aspectRatio == 1.333)
            #expect(view.placeholder?.count == 28, "a 4×3 BlurHash is 28 characters: \(view.placeholder ?? "none")")
            #expect(view.posterURL == nil && view.playbackURL == nil)
            let thumbnail = try #require(view.thumbnailURL)
            let display = try #require(view.displayURL)
            let expires = try #require(view.expiresAt)
            // One to two hours, the same URL for a while: a cache keeps working across pages.
            let left = expires.timeIntervalSince(harness.clock.now())
            #expect(left > 3600 && left <= 7200)
            #expect(try await views(client, [photo.id], token: alice).first?.thumbnailURL == thumbnail)

            // No token: a plain image loader. Public caching until the URL expires, an ETag.
            let fetched = try await client.execute(uri: thumbnail, method: .get)
            #expect(fetched.status == .ok)
            #expect(fetched.headers[.contentType] == "image/jpeg")
            #expect(fetched.headers[.cacheControl]?.hasPrefix("public, max-age=") == true)
            #expect(fetched.headers[.eTag] != nil)
            let shown = try await client.execute(uri: display, method: .get)
            #expect(shown.status == .ok && shown.body.readableBytes > 0)
            let again = try await client.execute(
                uri: display, method: .get, headers: [.ifNoneMatch: try #require(shown.headers[.eTag])])
            #expect(again.status == .notModified)

            // Altered: another signature, another expiry, another variant or media: 403, no bytes.
            let forged = [
                altered(thumbnail) { items in
                    items = items.map {
                        // Another first character (a signature starting with "A" stayed itself, 1 in 64).
                        $0.name == "sig"
                            ? URLQueryItem(
                                name: "sig", value: ($0.value!.first == "A" ? "B" : "A") + $0.value!.dropFirst())
                            : $0
                    }
                },
                altered(thumbnail) { items in
                    items = items.map {
                        $0.name == "exp" ? URLQueryItem(name: "exp", value: "\(Int($0.value!)! + 3600)") : $0
                    }
                },
                altered(thumbnail) { items in items.removeAll { $0.name == "sig" } },
                altered(thumbnail) { items in
                    items = items.map { $0.name == "kid" ? URLQueryItem(name: "kid", value: "vnope") : $0 }
                },
                thumbnail.replacingOccurrences(of: "/thumbnail?", with: "/display?"),
            ]
            for url in forged {
                let refused = try await client.execute(uri: url, method: .get)
                #expect(refused.status == .forbidden, "\(url)")
                #expect(refused.headers[.contentType] != "image/jpeg")
            }
            // Expired: refused too.
            harness.clock.advance(by: left + 1)
            let expired = try await client.execute(uri: thumbnail, method: .get)
            #expect(expired.status == .forbidden)
            #expect(expired.error?.message == "The URL has expired; ask for a new one.")
        }
    }

    /// `GET /v1/media?ids=`: in the order asked, what the caller may not see simply absent;
    /// a malformed id, none, or more than 100 is a 400.
    @Test func aBatchAnswersWhatTheCallerMaySeeInOrder() async throws {
        try await TestMedia.withParts { harness, processor, client in
            let (alice, bob) = (try await harness.token(for: Self.alice), try await harness.token(for: Self.bob))
            let first = try await upload(client, token: alice, seed: 3)
            let second = try await upload(client, token: alice, seed: 4)
            let unknown = "00000000-0000-4000-8000-0000000000ee"
            #expect(
                try await views(client, [second.id, unknown, first.id], token: alice).map(\.id) == [
                    second.id, first.id,
                ])
            // Private to Alice until a post shows it.
            #expect(try await views(client, [first.id, second.id], token: bob).isEmpty)
            try await TestMedia.attach(second.id, owner: Self.alice, store: processor.store)
            #expect(try await views(client, [first.id, second.id], token: bob).map(\.id) == [second.id])
            #expect(try await views(client, [second.id], token: bob).first?.thumbnailURL != nil)

            let many = (0..<101).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
            for query in ["", "ids=", "ids=nope", "ids=\(many.joined(separator: ","))"] {
                let response = try await client.get("/v1/media?\(query)", token: alice)
                #expect(response.status == .badRequest, "\(query)")
                #expect(response.error?.code == .validationFailed)
            }
            #expect(try await client.get("/v1/media?ids=\(first.id)").status == .unauthorized)
        }
    }

    /// A signature is not a licence: media that is not there (or no longer ready) is a 404
    /// whatever the URL says.
    @Test func aSignedURLOfMediaNotThereIsNotFound() async throws {
        try await TestMedia.withRouter { harness, client in
            let keys = try ViewKeyFiles(
                directory: harness.directory.url.appendingPathComponent("media/view-keys"), rotation: 86400,
                clock: harness.clock, entropy: SystemEntropy()
            ).current()
            let signer = try MediaURLSigner(keys)
            let url = signer.url(
                "00000000-0000-4000-8000-0000000000ee", .display, expires: signer.expiry(at: harness.clock.now()))
            let response = try await client.execute(uri: url, method: .get)
            #expect(response.status == .notFound)
        }
    }
}
