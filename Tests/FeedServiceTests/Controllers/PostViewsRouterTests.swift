import Foundation
import GRDB
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import FeedService

/// What a post carries for the screen that draws it: its author, its media as views, the
/// people a reply answers and who reposted it; from feed's own copies, as they stand now.
@Suite struct PostViewsRouterTests {
    typealias Threads = ThreadsRouterTests
    static let (alice, bob, carol) = (Threads.alice, Threads.bob, Threads.carol)
    let threads = ThreadsRouterTests()

    static let people = [
        UserSummary(id: alice, displayName: "Alice", username: "alice"),
        UserSummary(id: bob, displayName: "Bob", username: "bob"),
        UserSummary(id: carol, displayName: "Carol", username: "carol"),
    ]

    func get<Value: Decodable>(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, _ path: String, as viewer: String,
        _: Value.Type
    ) async throws -> Value {
        let response = try await threads.act(harness, client, .get, path, by: viewer)
        #expect(response.status == .ok, "\(path): \(String(buffer: response.body))")
        return try response.json(Value.self)
    }

    /// A photo posted a moment after its upload shows at once: the post keeps what media
    /// answered of it, before `media.described` reaches feed.
    @Test func aPhotoPostedJustAfterItsUploadShowsAtOnce() async throws {
        try await threads.withFeed { harness, client, _, _ in
            let post = try await threads.post(
                harness, client, CreatePostRequest(text: "Fresh", mediaIds: [Threads.mediaID(10)])
            ).json(Post.self)
            let seen = try await get(harness, client, "/v1/posts/\(post.id)", as: Self.carol, Post.self)
            let photo = try #require(seen.media?.first)
            #expect(photo.kind == .photo && photo.placeholder != nil)
            #expect(photo.displayURL?.hasPrefix("/v1/media/views/\(Threads.mediaID(10))/display?exp=") == true)
        }
    }

    @Test func aPostCarriesItsAuthorAndMediaAndAReplyTheOnesItAnswers() async throws {
        try await threads.withFeed { harness, client, runner, _ in
            try harness.mirror(people: Self.people, media: Threads.library, avatars: [Self.alice: Threads.mediaID(6)])
            let root = try await threads.post(
                harness, client, CreatePostRequest(text: "Pier", mediaIds: [Threads.mediaID(2), Threads.mediaID(1)])
            ).json(Post.self)

            let seen = try await get(harness, client, "/v1/posts/\(root.id)", as: Self.carol, Post.self)
            let author = try #require(seen.author)
            #expect(author.id == Self.alice && author.displayName == "Alice" && author.username == "alice")
            #expect(author.avatar?.thumbnailURL?.hasPrefix("/v1/media/views/\(Threads.mediaID(6))/thumbnail?") == true)
            let media = try #require(seen.media)
            #expect(media.map(\.id) == [Threads.mediaID(2), Threads.mediaID(1)], "in the post's order")
            #expect(media.allSatisfy { $0.kind == .photo && $0.placeholder != nil && $0.aspectRatio == 0.8 })
            #expect(media[0].displayURL?.hasPrefix("/v1/media/views/\(Threads.mediaID(2))/display?exp=") == true)

            // A thread: each reply names the one it answers and the thread's first author.
            let reply = try await threads.post(
                harness, client, CreatePostRequest(text: "Bob answers", replyTo: root.id), by: Self.bob
            ).json(Post.self)
            harness.clock.advance(by: 1)
            let deeper = try await threads.post(
                harness, client, CreatePostRequest(text: "Carol answers Bob", replyTo: reply.id), by: Self.carol
            ).json(Post.self)
            let answers = try await get(
                harness, client, "/v1/posts/\(reply.id)/replies", as: Self.alice, Page<Post>.self)
            let answer = try #require(answers.items.first { $0.id == deeper.id })
            #expect(answer.author?.displayName == "Carol")
            #expect(answer.replyToAuthor?.displayName == "Bob" && answer.rootAuthor?.displayName == "Alice")

            // A repost in the following feed says who reposted it.
            #expect(
                try await threads.act(harness, client, .put, "/v1/users/\(Self.bob)/follow", by: Self.carol).status
                    == .ok)
            #expect(
                try await threads.act(harness, client, .put, "/v1/posts/\(root.id)/repost", by: Self.bob).status == .ok)
            await runner.drain()
            let feed = try await get(harness, client, "/v1/feed/following", as: Self.carol, Page<TimelineItem>.self)
            let repost = try #require(feed.items.first { $0.post.id == root.id })
            #expect(repost.by?.displayName == "Bob" && repost.post.author?.displayName == "Alice")

            // A rename and a deleted account show at the next read, with no call to auth.
            try harness.mirror(people: [UserSummary(id: Self.alice, displayName: "Alice Liddell", username: "alice")])
            try harness.mirrorDeletion(of: Self.bob)
            let after = try await get(harness, client, "/v1/posts/\(deeper.id)", as: Self.carol, Post.self)
            #expect(after.rootAuthor?.displayName == "Alice Liddell")
            #expect(after.replyToAuthor == .deletedAccount(Self.bob))
        }
    }

    @Test func mediaStillProcessingShowsItsAuthorNoURLAndABlockHidesTheOneAnswered() async throws {
        try await threads.withFeed { harness, client, _, store in
            try harness.mirror(people: Self.people, media: Threads.library)
            let video = try await threads.post(
                harness, client, CreatePostRequest(text: "Clip", mediaIds: [Threads.mediaID(7)])
            ).json(Post.self)
            let own = try await get(harness, client, "/v1/posts/\(video.id)", as: Self.alice, Post.self)
            let view = try #require(own.media?.first)
            #expect(view.kind == .video && view.status == .processing)
            #expect(view.playbackURL == nil && view.thumbnailURL == nil && view.expiresAt == nil)

            // Carol answers Bob; Alice blocked Bob, so Alice reads Carol's answer without him.
            let bobs = try await threads.post(harness, client, CreatePostRequest(text: "Bob's"), by: Self.bob)
                .json(Post.self)
            let answer = try await threads.post(
                harness, client, CreatePostRequest(text: "Carol to Bob", replyTo: bobs.id), by: Self.carol
            ).json(Post.self)
            #expect(
                try await get(harness, client, "/v1/posts/\(answer.id)", as: Self.alice, Post.self).replyToAuthor?.id
                    == Self.bob)
            try await store.database.write { db in
                try BlockMirror.apply(UserBlocked(blockerId: Self.alice, blockedId: Self.bob), in: db)
            }
            let blocked = try await get(harness, client, "/v1/posts/\(answer.id)", as: Self.alice, Post.self)
            #expect(blocked.author?.displayName == "Carol")
            #expect(blocked.replyToAuthor == nil && blocked.rootAuthor == nil)
        }
    }

    /// A quote's card shows the post it quotes (author, words, photos) from the same answer; a
    /// quoted post the reader may not see is left out, its id kept.
    @Test func aQuoteCarriesTheQuotedPostUnlessTheReaderMayNotSeeIt() async throws {
        try await threads.withFeed { harness, client, runner, store in
            try harness.mirror(people: Self.people, media: Threads.library)
            let quoted = try await threads.post(
                harness, client, CreatePostRequest(text: "Golden hour", mediaIds: [Threads.mediaID(2)])
            ).json(Post.self)
            let quote = try await threads.post(
                harness, client, CreatePostRequest(text: "Look at this", quoteOf: quoted.id), by: Self.bob
            ).json(Post.self)
            #expect(
                try await threads.act(harness, client, .put, "/v1/users/\(Self.bob)/follow", by: Self.carol).status
                    == .ok)
            await runner.drain()
            let feed = try await get(harness, client, "/v1/feed/following", as: Self.carol, Page<TimelineItem>.self)
            let card = try #require(feed.items.first { $0.post.id == quote.id }?.post.quoted)
            #expect(card.id == quoted.id && card.text == "Golden hour" && card.author?.displayName == "Alice")
            #expect(card.media?.map(\.id) == [Threads.mediaID(2)] && card.media?.first?.thumbnailURL != nil)
            #expect(try await get(harness, client, "/v1/posts/\(quote.id)", as: Self.carol, Post.self).quoted == card)

            // Carol blocks Alice: the quote still shows, without what Alice wrote.
            try await store.database.write { db in
                try BlockMirror.apply(UserBlocked(blockerId: Self.carol, blockedId: Self.alice), in: db)
            }
            let blocked = try await get(harness, client, "/v1/posts/\(quote.id)", as: Self.carol, Post.self)
            #expect(blocked.quoteOf == quoted.id && blocked.quoted == nil)
        }
    }
}
