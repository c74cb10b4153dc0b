import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import FeedService

/// Posts of words through feed's router: text with a link and media, threads, likes, reposts and
/// quotes, deleting one's own, and the following feed written ahead.
@Suite struct ThreadsRouterTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"
    static let carol = "00000000-0000-4000-8000-00000000000c"

    static func mediaID(_ index: Int) -> String { String(format: "3e000000-0000-4000-8000-%012d", index) }

    static let library: [MediaSummary] =
        (1...6).map { MediaSummary(id: mediaID($0), ownerId: alice, contentType: "image/jpeg", status: .ready) } + [
            MediaSummary(id: mediaID(7), ownerId: alice, contentType: "video/mp4", status: .processing),
            MediaSummary(id: mediaID(8), ownerId: bob, contentType: "image/jpeg", status: .ready),
            MediaSummary(id: mediaID(9), ownerId: carol, contentType: "image/jpeg", status: .ready),
            // Just uploaded: media's answer describes it; no `media.described` has reached feed.
            MediaSummary(
                id: mediaID(10), ownerId: alice, contentType: "image/jpeg", status: .ready,
                described: ServiceHarness.described(
                    MediaSummary(id: mediaID(10), ownerId: alice, contentType: "image/jpeg", status: .ready))),
        ]

    static let names = [alice: "Alice", bob: "Bob", carol: "Carol"]

    @Test(arguments: [
        ("Thanks @Ada_K and @ben.r. See you", ["ada_k", "ben.r"]),
        ("mail me at ada@example.com or @ada_k", ["ada_k"]),
        ("@ab is too short, @1abc starts with a digit, @@ada is not one", []),
        ("@kai @Kai @KAI", ["kai"]),
        ("(@kai_r), @leo…", ["kai_r", "leo"]),
    ])
    func mentionsAreNamesInTheUsernamesAlphabetAfterAnAt(text: String, names: [String]) {
        #expect(Mentions.names(in: text) == names)
    }

    /// A link's card comes from its address alone: the site without `www.`, a short address.
    @Test(arguments: [
        ("https://www.Example.com/", "example.com", "example.com", true),
        (
            "http://news.example.org/2026/11/a-very-long-story-about-the-pier", "news.example.org",
            "news.example.org/2026/11/a-very-long-st…", false
        ),
    ])
    func aLinkPreviewIsMadeWithoutFetching(url: String, site: String, display: String, secure: Bool) {
        #expect(PostDraft.preview(of: url) == LinkPreview(url: url, site: site, display: display, secure: secure))
        #expect(PostDraft.preview(of: nil) == nil)
    }

    @Test func aMentionTellsEachOneNamedOnceButNotAcrossABlockNorTheOneAnswered() async throws {
        let harness = try ServiceHarness(.feed)
        let named = Lookup<UserSummary>.fixed([
            "bob": UserSummary(id: Self.bob, displayName: "Bob", username: "Bob"),
            "carol": UserSummary(id: Self.carol, displayName: "Carol", username: "carol"),
            "ada": UserSummary(id: Self.alice, displayName: "Alice", username: "ada"),
        ])
        let users = Lookup<UserSummary>.fixed(
            Dictionary(
                uniqueKeysWithValues: Self.names.map { ($0.key, UserSummary(id: $0.key, displayName: $0.value)) }))
        let parts = try await FeedService.buildRouter(
            runtime: harness.runtime, reader: harness.reader,
            dependencies: FeedDependencies(media: .fixed([:]), users: users, usernames: named))
        let store = try FeedStore.opened(beside: harness)
        try await harness.test(parts) { client in
            let posted = try await post(
                harness, client, CreatePostRequest(text: "Thanks @bob, @Carol, @nobody and me @ada, cc bob@x.com"))
            let first = try posted.json(Post.self)
            let alice = EventActor(userId: Self.alice, displayName: "Alice")
            #expect(
                try harness.outboxEvents(PostMentioned.self) == [
                    PostMentioned(postId: first.id, mentionedId: Self.bob, actor: alice),
                    PostMentioned(postId: first.id, mentionedId: Self.carol, actor: alice),
                ])
            try await store.database.write { db in
                try BlockMirror.apply(UserBlocked(blockerId: Self.carol, blockedId: Self.alice), in: db)
            }
            let bobs = try await post(harness, client, CreatePostRequest(text: "Hi"), by: Self.bob).json(Post.self)
            _ = try await post(harness, client, CreatePostRequest(text: "@bob @carol yes", replyTo: bobs.id))
            #expect(try harness.outboxEvents(PostMentioned.self).count == 2)
        }
    }

    func withFeed(
        sessions: Lookup<SessionState>? = nil,
        _ body: @escaping @Sendable (ServiceHarness, any TestClientProtocol, JobRunner, FeedStore) async throws -> Void
    ) async throws {
        try await withFeedRouter(library: Self.library, names: Self.names, sessions: sessions, body)
    }

    func post(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, _ request: CreatePostRequest,
        by user: String = alice
    ) async throws -> TestResponse {
        try await client.post("/v1/posts", request, token: try await harness.token(for: user, session: user + "/app"))
    }

    func act(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ path: String,
        by user: String
    ) async throws -> TestResponse {
        try await client.request(method, path, token: try await harness.token(for: user, session: user + "/app"))
    }

    @Test func aPostIsTextWithALinkMediaAndAPlaceOrAPhotoAtAPlaceAndBadOnesChangeNothing() async throws {
        try await withFeed { harness, client, _, _ in
            let created = try await post(
                harness, client,
                CreatePostRequest(
                    text: "  Golden hour at the pier ", linkURL: "https://example.com/pier?x=1",
                    mediaIds: [Self.mediaID(2), Self.mediaID(1)]))
            #expect(created.status == .created)
            let wordsPost = try created.json(Post.self)
            #expect(wordsPost.text == "Golden hour at the pier" && wordsPost.caption == "Golden hour at the pier")
            #expect(wordsPost.linkURL == "https://example.com/pier?x=1" && wordsPost.latitude == nil)
            #expect(
                wordsPost.linkPreview
                    == LinkPreview(
                        url: "https://example.com/pier?x=1", site: "example.com", display: "example.com/pier",
                        secure: true))
            #expect(wordsPost.mediaId == Self.mediaID(2) && wordsPost.mediaIds == [Self.mediaID(2), Self.mediaID(1)])
            #expect(
                wordsPost.likeCount == 0 && wordsPost.replyCount == 0 && !wordsPost.liked && wordsPost.deleted == nil)
            #expect(
                try harness.outboxEvents(MediaAttached.self).map(\.mediaId) == [Self.mediaID(2), Self.mediaID(1)])
            // Words alone, and a photo at a place, as before.
            let words = try await post(harness, client, CreatePostRequest(text: "Just words")).json(Post.self)
            #expect(words.mediaId == nil && words.mediaIds == nil && words.text == "Just words")
            let photoPost = try await post(
                harness, client, CreatePostRequest(mediaId: Self.mediaID(3), caption: "pier", latitude: 1, longitude: 2)
            )
            #expect(photoPost.status == .created)
            #expect(try photoPost.json(Post.self).mediaIds == [Self.mediaID(3)])

            let before = try harness.outboxTypes()
            let bad: [(CreatePostRequest, HTTPResponse.Status)] = [
                (CreatePostRequest(text: "   "), .badRequest),
                (CreatePostRequest(text: String(repeating: "é", count: 501)), .badRequest),
                (CreatePostRequest(text: "x", linkURL: "ftp://example.com/f"), .badRequest),
                (CreatePostRequest(text: "x", linkURL: "https://user:pw@example.com/"), .badRequest),
                (CreatePostRequest(text: "x", linkURL: "example.com"), .badRequest),
                (CreatePostRequest(text: "x", mediaIds: (1...5).map(Self.mediaID)), .badRequest),
                (CreatePostRequest(text: "x", mediaIds: [Self.mediaID(4), Self.mediaID(4)]), .badRequest),
                (CreatePostRequest(text: "x", latitude: 1), .badRequest),
                (
                    CreatePostRequest(
                        text: "x", replyTo: "00000000-0000-4000-8000-000000000001",
                        quoteOf: "00000000-0000-4000-8000-000000000002"), .badRequest
                ),
                (CreatePostRequest(text: "x", replyTo: "00000000-0000-4000-8000-000000000001"), .notFound),
                (CreatePostRequest(text: "x", mediaIds: [Self.mediaID(8)]), .notFound),
                (CreatePostRequest(text: "x", mediaIds: [Self.mediaID(4), Self.mediaID(7)]), .conflict),
            ]
            for (request, status) in bad {
                #expect(try await post(harness, client, request).status == status, "\(request)")
            }
            // The words come once, as the document says: even the same words twice are refused.
            for caption in ["b", "a"] {
                var both = CreatePostRequest(text: "a")
                both.caption = caption
                #expect(try await post(harness, client, both).status == .badRequest)
            }
            #expect(try harness.outboxTypes() == before)
        }
    }

    @Test func repliesFormAThreadLikesAndRepostsCountAndTellTheAuthor() async throws {
        try await withFeed { harness, client, _, store in
            let root = try await post(harness, client, CreatePostRequest(text: "Thread start")).json(Post.self)
            let reply = try await post(
                harness, client, CreatePostRequest(text: "Bob answers", replyTo: root.id), by: Self.bob
            ).json(Post.self)
            harness.clock.advance(by: 1)
            let deeper = try await post(
                harness, client, CreatePostRequest(text: "Carol answers Bob", replyTo: reply.id), by: Self.carol
            ).json(Post.self)
            harness.clock.advance(by: 1)
            let own = try await post(harness, client, CreatePostRequest(text: "Alice too", replyTo: root.id))
                .json(Post.self)
            #expect(reply.replyTo == root.id && reply.rootId == root.id)
            #expect(deeper.replyTo == reply.id && deeper.rootId == root.id)
            func replies(_ id: String, as viewer: String = Self.carol) async throws -> [String] {
                try await client.allPages(
                    "/v1/posts/\(id)/replies?limit=1",
                    token: try await harness.token(for: viewer, session: viewer + "/app"),
                    of: Post.self
                ).map(\.id)
            }
            #expect(try await replies(root.id) == [reply.id, own.id])
            #expect(try await replies(reply.id) == [deeper.id])
            #expect(
                try await act(harness, client, .get, "/v1/posts/\(root.id)", by: Self.bob).json(Post.self).replyCount
                    == 2)
            // The author of the post answered is told, not the one answering themselves.
            #expect(
                try harness.outboxEvents(PostReplied.self).map { [$0.activity.authorId, $0.activity.actor.userId] } == [
                    [Self.alice, Self.bob], [Self.bob, Self.carol],
                ])

            // Likes: one each, again changes nothing; one's own like tells nobody.
            for _ in 0..<2 {
                let liked = try await act(harness, client, .put, "/v1/posts/\(root.id)/like", by: Self.bob)
                #expect(try liked.json(Post.self).likeCount == 1 && liked.json(Post.self).liked)
            }
            #expect(
                try await act(harness, client, .put, "/v1/posts/\(root.id)/like", by: Self.alice).json(Post.self)
                    .likeCount == 2)
            #expect(try harness.outboxEvents(PostLiked.self).map(\.activity.actor.userId) == [Self.bob])
            let unliked = try await act(harness, client, .delete, "/v1/posts/\(root.id)/like", by: Self.bob)
            #expect(try unliked.json(Post.self).likeCount == 1 && !unliked.json(Post.self).liked)
            #expect(try await act(harness, client, .delete, "/v1/posts/\(root.id)/like", by: Self.bob).status == .ok)

            // A repost and a quote both count, and both tell Alice.
            let reposted = try await act(harness, client, .put, "/v1/posts/\(root.id)/repost", by: Self.bob)
            #expect(try reposted.json(Post.self).reposted && reposted.json(Post.self).repostCount == 1)
            let quote = try await post(
                harness, client, CreatePostRequest(text: "Read this", quoteOf: root.id), by: Self.carol
            ).json(Post.self)
            #expect(quote.quoteOf == root.id)
            #expect(
                try await act(harness, client, .get, "/v1/posts/\(root.id)", by: Self.bob).json(Post.self).repostCount
                    == 2)
            #expect(
                try harness.outboxEvents(PostReposted.self).map(\.activity) == [
                    PostActivity(
                        postId: root.id, authorId: Self.alice, actor: EventActor(userId: Self.bob, displayName: "Bob")),
                    PostActivity(
                        postId: root.id, authorId: Self.alice,
                        actor: EventActor(userId: Self.carol, displayName: "Carol"),
                        replyId: quote.id),
                ])

            // Across a block nothing can be done to the other's posts.
            try await store.database.write { db in
                try BlockMirror.apply(UserBlocked(blockerId: Self.alice, blockedId: Self.carol), in: db)
            }
            #expect(
                try await act(harness, client, .put, "/v1/posts/\(root.id)/like", by: Self.carol).status == .notFound)
            // Alice no longer sees Carol's answer in the thread; Carol still does.
            #expect(try await replies(reply.id, as: Self.alice).isEmpty)
            #expect(try await replies(reply.id) == [deeper.id])
        }
    }

    @Test func deletingOnesPostLeavesAPlaceholderAndReleasesItsMedia() async throws {
        try await withFeed { harness, client, _, _ in
            let root = try await post(
                harness, client, CreatePostRequest(text: "Soon gone", mediaIds: [Self.mediaID(5), Self.mediaID(6)])
            ).json(Post.self)
            let reply = try await post(harness, client, CreatePostRequest(text: "Kept", replyTo: root.id), by: Self.bob)
                .json(Post.self)
            _ = try await act(harness, client, .put, "/v1/posts/\(root.id)/like", by: Self.bob)
            #expect(try await act(harness, client, .delete, "/v1/posts/\(root.id)", by: Self.bob).status == .notFound)
            #expect(
                try await act(harness, client, .delete, "/v1/posts/\(root.id)", by: Self.alice).status == .noContent)
            #expect(try await act(harness, client, .delete, "/v1/posts/\(root.id)", by: Self.alice).status == .notFound)
            let placeholder = try await act(harness, client, .get, "/v1/posts/\(root.id)", by: Self.bob).json(Post.self)
            #expect(placeholder.deleted == true && placeholder.text.isEmpty && placeholder.mediaIds == nil)
            #expect(placeholder.likeCount == 0 && !placeholder.liked && placeholder.replyCount == 1)
            let thread = try await act(harness, client, .get, "/v1/posts/\(root.id)/replies", by: Self.bob)
                .json(Page<Post>.self)
            #expect(thread.items.map(\.id) == [reply.id])
            #expect(
                try harness.outboxEvents(MediaDetached.self) == [
                    MediaDetached(
                        mediaId: Self.mediaID(5), ownerId: Self.alice, referenceType: "post", referenceId: root.id),
                    MediaDetached(
                        mediaId: Self.mediaID(6), ownerId: Self.alice, referenceType: "post", referenceId: root.id),
                ])
            // Nothing more happens to it: no like, no reply, no vote.
            #expect(try await act(harness, client, .put, "/v1/posts/\(root.id)/like", by: Self.bob).status == .notFound)
            #expect(
                try await post(harness, client, CreatePostRequest(text: "Late", replyTo: root.id), by: Self.bob).status
                    == .notFound)
            let counts = try harness.outboxEvents(ProfileCountsChanged.self).filter { $0.userId == Self.alice }
            #expect(counts.last?.counts.posts == 0)
        }
    }

    @Test func theFollowingFeedShowsWhatTheFollowedPostAndRepostAndNothingElse() async throws {
        try await withFeed { harness, client, runner, store in
            func bobFollows(_ user: String) async throws {
                #expect(try await act(harness, client, .put, "/v1/users/\(user)/follow", by: Self.bob).status == .ok)
            }
            func feed(_ user: String = Self.bob) async throws -> [String] {
                try await client.allPages(
                    "/v1/feed/following?limit=2", token: try await harness.token(for: user, session: user + "/app"),
                    of: TimelineItem.self
                ).map { $0.post.text + ($0.repostedBy.map { " ↻\(Self.names[$0]!)" } ?? "") }
            }
            let early = try await post(harness, client, CreatePostRequest(text: "A1")).json(Post.self)
            try await bobFollows(Self.alice)
            // Following brings her latest posts in at once.
            #expect(try await feed() == ["A1"])
            for text in ["A2", "A3"] {
                harness.clock.advance(by: 1)
                _ = try await post(harness, client, CreatePostRequest(text: text))
            }
            harness.clock.advance(by: 1)
            _ = try await post(harness, client, CreatePostRequest(text: "B1"), by: Self.bob)
            // Replies stay in their threads.
            _ = try await post(harness, client, CreatePostRequest(text: "A-reply", replyTo: early.id))
            // A few followers' rows are written with the post, before any job runs.
            #expect(try await feed() == ["B1", "A3", "A2", "A1"])
            #expect(try await feed(Self.carol).isEmpty)

            // Carol reposts Alice's first post; once Bob follows Carol it comes back to the top.
            try await bobFollows(Self.carol)
            harness.clock.advance(by: 1)
            _ = try await act(harness, client, .put, "/v1/posts/\(early.id)/repost", by: Self.carol)
            await runner.drain()
            #expect(try await feed() == ["A1 ↻Carol", "B1", "A3", "A2"])
            #expect(try await feed(Self.carol) == ["A1 ↻Carol"])

            // Hidden and deleted posts drop out; unfollowing Alice takes hers but not Carol's repost.
            let hidden = try #require(
                try await store.database.read { db in
                    try String.fetchOne(db, sql: "SELECT id FROM post WHERE caption = 'A2'")
                })
            try await store.database.write { db in
                try FeedStore.hide(
                    .post, hidden, at: Date(),
                    outbox: store.outbox,
                    in: db)
            }
            #expect(try await feed() == ["A1 ↻Carol", "B1", "A3"])
            #expect(
                try await act(harness, client, .delete, "/v1/users/\(Self.alice)/follow", by: Self.bob).status == .ok)
            #expect(try await feed() == ["A1 ↻Carol", "B1"])
            _ = try await act(harness, client, .delete, "/v1/posts/\(early.id)/repost", by: Self.carol)
            #expect(try await feed() == ["B1"])
        }
    }

    @Test func mutedWordsKeepPostsOutOfEveryListAndOutOfNotifications() async throws {
        try await withFeed { harness, client, runner, store in
            func mute(_ phrases: [String], revision: Int, until: Date? = nil) async throws {
                try await store.database.write { db in
                    try KeywordMuteMirror.apply(
                        KeywordMutesChanged(
                            userId: Self.bob, mutes: phrases.map { MutedPhrase(phrase: $0, until: until) },
                            revision: revision), in: db)
                }
            }
            try await mute(
                ["spoiler", "Game of Thrones"], revision: 2, until: harness.clock.now().addingTimeInterval(3600))
            try await mute([], revision: 1)  // late: ignored
            _ = try await act(harness, client, .put, "/v1/users/\(Self.alice)/follow", by: Self.bob)
            let root = try await post(harness, client, CreatePostRequest(text: "Plain words")).json(Post.self)
            harness.clock.advance(by: 1)
            let muted = try await post(
                harness, client,
                CreatePostRequest(
                    text: "GAME of thrones: Spöiler!", mediaIds: [Self.mediaID(1)], latitude: 1, longitude: 1)
            ).json(Post.self)
            harness.clock.advance(by: 1)
            _ = try await post(harness, client, CreatePostRequest(text: "a spoiler", replyTo: root.id))
            harness.clock.advance(by: 1)
            _ = try await post(harness, client, CreatePostRequest(text: "fine", replyTo: root.id))
            await runner.drain()
            func texts(_ path: String, as user: String = Self.bob) async throws -> [String] {
                try await act(harness, client, .get, path, by: user).json(Page<Post>.self).items.map(\.text)
            }
            let following = try await act(harness, client, .get, "/v1/feed/following", by: Self.bob)
                .json(Page<TimelineItem>.self).items.map(\.post.text)
            #expect(following == ["Plain words"])
            #expect(try await texts("/v1/posts/\(root.id)/replies") == ["fine"])
            #expect(try await texts("/v1/posts/\(root.id)/replies", as: Self.carol) == ["a spoiler", "fine"])
            #expect(try await texts("/v1/users/\(Self.alice)/posts") == ["Plain words"])
            #expect(try await texts("/v1/feed/nearby?lat=1&lon=1&radius_m=1000").isEmpty)
            #expect(try await texts("/v1/feed/nearby?lat=1&lon=1&radius_m=1000", as: Self.carol) == [muted.text])
            // Opened directly, a muted post still shows.
            #expect(try await act(harness, client, .get, "/v1/posts/\(muted.id)", by: Self.bob).status == .ok)

            // A muted reply or mention tells nobody; an unmuted one does.
            let bobs = try await post(harness, client, CreatePostRequest(text: "Bob's"), by: Self.bob).json(Post.self)
            _ = try await post(harness, client, CreatePostRequest(text: "total spoiler", replyTo: bobs.id))
            _ = try await post(harness, client, CreatePostRequest(text: "nice", replyTo: bobs.id))
            #expect(try harness.outboxEvents(PostReplied.self).filter { $0.activity.authorId == Self.bob }.count == 1)

            // The mute ends at its time.
            harness.clock.advance(by: 3600)
            #expect(try await texts("/v1/users/\(Self.alice)/posts").contains(muted.text))
        }
    }

    @Test func aMutedPersonLeavesTheMutersFeedsSearchAndThreadsButNotTheirProfile() async throws {
        try await withFeed { harness, client, runner, store in
            for user in [Self.alice, Self.carol] {
                _ = try await act(harness, client, .put, "/v1/users/\(user)/follow", by: Self.bob)
            }
            let a1 = try await post(harness, client, CreatePostRequest(text: "A1 hello")).json(Post.self)
            harness.clock.advance(by: 1)
            _ = try await post(
                harness, client,
                CreatePostRequest(text: "C1 hello", mediaIds: [Self.mediaID(9)], latitude: 1, longitude: 1),
                by: Self.carol)
            harness.clock.advance(by: 1)
            _ = try await post(harness, client, CreatePostRequest(text: "C-reply", replyTo: a1.id), by: Self.carol)
            harness.clock.advance(by: 1)
            // Carol's repost would bring A1 to the top; muted, A1 stays at its own row.
            _ = try await act(harness, client, .put, "/v1/posts/\(a1.id)/repost", by: Self.carol)
            await runner.drain()
            func seen(by user: String = Self.bob) async throws -> [String] {
                func texts(_ path: String) async throws -> [String] {
                    try await act(harness, client, .get, path, by: user).json(Page<Post>.self).items.map(\.text)
                }
                let following = try await act(harness, client, .get, "/v1/feed/following", by: user)
                    .json(Page<TimelineItem>.self).items.map {
                        $0.post.text + ($0.repostedBy.map { " ↻\(Self.names[$0]!)" } ?? "")
                    }
                let forYou = try await act(harness, client, .get, "/v1/feed/for-you", by: user)
                    .json(Page<ForYouItem>.self).items.map(\.post.text)
                return following + ["|"] + forYou.sorted() + ["|"] + (try await texts("/v1/search/posts?q=hello"))
                    + ["|"] + (try await texts("/v1/posts/\(a1.id)/replies"))
                    + ["|"] + (try await texts("/v1/feed/nearby?lat=1&lon=1&radius_m=1000"))
            }
            let everything = ["A1 hello ↻Carol", "C1 hello", "|", "A1 hello", "C1 hello"]
            #expect(try await seen() == everything + ["|", "C1 hello", "A1 hello", "|", "C-reply", "|", "C1 hello"])

            try await store.database.write { db in
                try MuteMirrorRecord(muterId: Self.bob, mutedId: Self.carol).insert(db)
            }
            #expect(try await seen() == ["A1 hello", "|", "A1 hello", "|", "A1 hello", "|", "|"])
            // Her profile still shows her posts; nobody else is affected.
            #expect(
                try await act(harness, client, .get, "/v1/users/\(Self.carol)/posts", by: Self.bob).json(
                    Page<Post>.self
                )
                .items.map(\.text) == ["C1 hello"])
            #expect(try await seen(by: Self.alice).contains("C-reply"))

            try await store.database.write { db in
                _ = try MuteMirrorRecord.deleteOne(db, key: ["muter_id": Self.bob, "muted_id": Self.carol])
            }
            #expect(try await seen().starts(with: everything))
        }
    }

    @Test func forYouMixesTheFollowedTheirFollowsAndThePopularAndLeavesOutWhatWasSeen() async throws {
        let dave = "00000000-0000-4000-8000-00000000000d"
        // Each test session is named after its user; Carol's admin session may see the scores' factors.
        let sessions = Lookup<SessionState> { id in
            SessionState(
                sessionId: id, userId: String(id.split(separator: "/")[0]), limited: false,
                roles: id.hasSuffix("/admin") ? [RoleGrant(role: .admin)] : [], phoneVerified: false)
        }
        try await withFeed(sessions: sessions) { harness, client, runner, store in
            func forYou(
                _ query: String = "", as user: String = Self.bob, admin: Bool = false
            ) async throws
                -> Page<ForYouItem>
            {
                try await client.get(
                    "/v1/feed/for-you?" + query,
                    token: try await harness.token(for: user, session: user + (admin ? "/admin" : "/app"))
                ).json(Page<ForYouItem>.self)
            }
            _ = try await act(harness, client, .put, "/v1/users/\(Self.alice)/follow", by: Self.bob)
            _ = try await act(harness, client, .put, "/v1/users/\(Self.carol)/follow", by: Self.alice)
            let followed = try await post(harness, client, CreatePostRequest(text: "A1")).json(Post.self)
            let twoHop = try await post(harness, client, CreatePostRequest(text: "C1"), by: Self.carol).json(Post.self)
            let popular = try await post(harness, client, CreatePostRequest(text: "D1"), by: dave).json(Post.self)
            _ = try await act(harness, client, .put, "/v1/posts/\(popular.id)/like", by: Self.carol)
            _ = try await post(harness, client, CreatePostRequest(text: "B1"), by: Self.bob)
            await runner.drain()
            harness.clock.advance(by: 60)

            let page = try await forYou()
            #expect(Set(page.items.map(\.post.id)) == [followed.id, twoHop.id, popular.id])
            let reasons = Dictionary(uniqueKeysWithValues: page.items.map { ($0.post.id, $0.reasons) })
            #expect(reasons[followed.id] == ["You follow the author"])
            #expect(reasons[twoHop.id] == ["People you follow follow the author"])
            #expect(reasons[popular.id] == ["Popular right now"])
            #expect(page.items.allSatisfy { $0.debug == nil })
            // Deterministic for a seed; paged without repeats.
            #expect(
                try await forYou("seed=42").items.map(\.post.id) == (try await forYou("seed=42")).items.map(\.post.id))
            let paged = try await client.allPages(
                "/v1/feed/for-you?seed=42&limit=1",
                token: try await harness.token(for: Self.bob, session: Self.bob + "/app"), of: ForYouItem.self
            ).map(\.post.id)
            #expect(paged == (try await forYou("seed=42")).items.map(\.post.id))
            #expect(
                try await client.get(
                    "/v1/feed/for-you?seed=x", token: try await harness.token(for: Self.bob, session: Self.bob + "/app")
                ).status
                    == .badRequest)
            #expect(
                try await client.get(
                    "/v1/feed/for-you?debug=yes",
                    token: try await harness.token(for: Self.bob, session: Self.bob + "/app")
                ).status
                    == .badRequest)

            // An admin asking for it sees each factor of the score.
            let debug = try await forYou("debug=true", as: Self.carol, admin: true)
            let factors = try #require(debug.items.first?.debug)
            #expect(
                abs(
                    factors.score - (1 + factors.engagement) * factors.decay * factors.sourceWeight
                        * factors.affinityWeight * factors.jitter) < 1e-9)

            // Signals: once per id; a seen post is not offered again today.
            let signals = FeedSignalBatch(signals: [
                FeedSignal(id: "s1", postId: followed.id, kind: .seen),
                FeedSignal(id: "s2", postId: popular.id, kind: .dwell, dwellMs: 12_000),
            ])
            let bob = try await harness.token(for: Self.bob, session: Self.bob + "/app")
            let first = try await client.post("/v1/feed/signals", signals, token: bob)
            #expect(first.status == .accepted)
            #expect(try first.json(FeedSignalReceipt.self) == FeedSignalReceipt(accepted: 2, duplicates: 0))
            #expect(
                try await client.post("/v1/feed/signals", signals, token: bob).json(FeedSignalReceipt.self).duplicates
                    == 2)
            for bad in [
                FeedSignalBatch(signals: []),
                FeedSignalBatch(signals: [FeedSignal(id: "x", postId: "nope", kind: .seen)]),
                FeedSignalBatch(signals: [FeedSignal(id: "x", postId: followed.id, kind: .dwell)]),
                FeedSignalBatch(signals: [FeedSignal(id: "", postId: followed.id, kind: .open)]),
            ] {
                #expect(try await client.post("/v1/feed/signals", bad, token: bob).status == .badRequest)
            }
            #expect(try await forYou().items.map(\.post.id).contains(followed.id) == false)
            harness.clock.advance(by: 86400)
            #expect(try await forYou().items.map(\.post.id).contains(followed.id))

            // "Not interested" lasts; a week on, the housekeeper keeps it and drops the rest.
            let hide = FeedSignalBatch(signals: [FeedSignal(id: "s3", postId: followed.id, kind: .hide)])
            let later = try await harness.token(for: Self.bob, session: Self.bob + "/app")
            #expect(try await client.post("/v1/feed/signals", hide, token: later).status == .accepted)
            #expect(try await forYou().items.map(\.post.id).contains(followed.id) == false)
            harness.clock.advance(by: 8 * 86400)
            #expect(try await store.expireSignals(before: harness.clock.now().addingTimeInterval(-7 * 86400)) == 2)
            #expect(
                try await store.database.read { db in try String.fetchAll(db, sql: "SELECT kind FROM feed_signal") }
                    == ["hide"])
        }
    }

    /// Later pages read the first page's ranking: likes in between move nothing across pages
    /// (nothing twice, nothing skipped); a post deleted in between is left out.
    @Test func forYouPagesKeepTheirFirstPagesRanking() async throws {
        let dave = "00000000-0000-4000-8000-00000000000d"
        try await withFeed { harness, client, runner, _ in
            _ = try await act(harness, client, .put, "/v1/users/\(Self.alice)/follow", by: Self.bob)
            var posts: [String] = []
            for n in 1...4 {
                harness.clock.advance(by: 60)
                posts.append(try await post(harness, client, CreatePostRequest(text: "P\(n)")).json(Post.self).id)
            }
            await runner.drain()
            let bob = try await harness.token(for: Self.bob, session: Self.bob + "/app")
            var page = try await client.get("/v1/feed/for-you?limit=1&seed=3", token: bob).json(Page<ForYouItem>.self)
            var seen = page.items.map(\.post.id)
            // The rest would now rank differently: the oldest gets likes and a reply, one goes.
            let last = try #require(posts.first { !seen.contains($0) && $0 != posts[0] })
            for user in [Self.carol, dave] {
                _ = try await act(harness, client, .put, "/v1/posts/\(posts[0])/like", by: user)
            }
            _ = try await post(harness, client, CreatePostRequest(text: "!", replyTo: posts[0]), by: Self.carol)
            #expect(try await act(harness, client, .delete, "/v1/posts/\(last)", by: Self.alice).status == .noContent)
            while let cursor = page.nextCursor {
                page = try await client.get("/v1/feed/for-you?limit=1&cursor=\(cursor)", token: bob).json(
                    Page<ForYouItem>.self)
                seen += page.items.map(\.post.id)
            }
            #expect(seen.count == 3 && Set(seen) == Set(posts).subtracting([last]), "\(seen)")
        }
    }

    @Test func theHousekeeperTrimsLongTimelinesToTheirNewestRows() async throws {
        try await withFeed { harness, client, runner, store in
            _ = try await act(harness, client, .put, "/v1/users/\(Self.alice)/follow", by: Self.bob)
            for n in 1...5 {
                harness.clock.advance(by: 1)
                _ = try await post(harness, client, CreatePostRequest(text: "A\(n)"))
            }
            await runner.drain()
            func feed(_ user: String) async throws -> [String] {
                try await client.allPages(
                    "/v1/feed/following", token: try await harness.token(for: user, session: user + "/app"),
                    of: TimelineItem.self
                ).map(\.post.text)
            }
            #expect(try await feed(Self.bob) == ["A5", "A4", "A3", "A2", "A1"])
            // Alice's and Bob's timelines each had 5 rows; 3 of each go.
            #expect(try await store.trimTimelines(keeping: 2) == 6)
            #expect(try await feed(Self.bob) == ["A5", "A4"])
            #expect(try await feed(Self.alice) == ["A5", "A4"])
            #expect(try await store.trimTimelines(keeping: 2) == 0)
            // Her profile still lists every post.
            #expect(
                try await act(harness, client, .get, "/v1/users/\(Self.alice)/posts", by: Self.bob).json(
                    Page<Post>.self
                )
                .items.count == 5)
        }
    }

    @Test func postsAreFoundByTheirWordsButNotHiddenDeletedMutedOrAcrossABlock() async throws {
        try await withFeed { harness, client, _, store in
            func found(_ query: String, as user: String = Self.bob) async throws -> [String] {
                try await client.allPages(
                    "/v1/search/posts?limit=1&q="
                        + (query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""),
                    token: try await harness.token(for: user, session: user + "/app"), of: Post.self
                ).map(\.text)
            }
            let pier = try await post(harness, client, CreatePostRequest(text: "Golden hour at the Pier")).json(
                Post.self)
            harness.clock.advance(by: 1)
            _ = try await post(harness, client, CreatePostRequest(text: "The pier café, pier again"), by: Self.carol)
            _ = try await post(harness, client, CreatePostRequest(text: "Nothing to see"))
            // Whole words or the start of the last one, any case or accent; the better match first.
            #expect(try await found("pier") == ["The pier café, pier again", "Golden hour at the Pier"])
            #expect(try await found("PIÉR gold") == ["Golden hour at the Pier"])
            #expect(try await found("cafe") == ["The pier café, pier again"])
            #expect(try await found("pie") == ["The pier café, pier again", "Golden hour at the Pier"])
            #expect(try await found("ier").isEmpty)
            // FTS syntax in the query is only words.
            #expect(try await found("pier\" OR NEAR(x) *").isEmpty)
            #expect(try await found("\"pier\"") == ["The pier café, pier again", "Golden hour at the Pier"])
            for bad in ["a", "!!", String(repeating: "x", count: 101)] {
                #expect(
                    try await act(harness, client, .get, "/v1/search/posts?q=\(bad)", by: Self.bob).status
                        == .badRequest)
            }
            // Muted, blocked, deleted: gone from the results.
            try await store.database.write { db in
                try KeywordMuteMirror.apply(
                    KeywordMutesChanged(
                        userId: Self.bob, mutes: [MutedPhrase(phrase: "golden", until: nil)], revision: 1),
                    in: db)
                try BlockMirror.apply(UserBlocked(blockerId: Self.carol, blockedId: Self.alice), in: db)
            }
            #expect(try await found("pier") == ["The pier café, pier again"])
            #expect(try await found("pier", as: Self.alice) == ["Golden hour at the Pier"])
            #expect(
                try await act(harness, client, .delete, "/v1/posts/\(pier.id)", by: Self.alice).status == .noContent)
            #expect(try await found("pier", as: Self.alice).isEmpty)
            #expect(try await found("golden", as: Self.carol).isEmpty)
        }
    }

    @Test func aPostReachesAFewFollowersInItsOwnTransaction() async throws {
        try await withFeed { harness, client, _, store in
            let followers = 3
            let jobsBefore = try await store.database.write { db in
                for index in 0..<followers {
                    try FollowRecord(
                        followerId: String(format: "f0000000-0000-4000-8000-%012d", index), followeeId: Self.alice,
                        createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index))
                    ).insert(db)
                }
                return try Int.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'kit_job'") ?? 0
            }
            let post = try await post(harness, client, CreatePostRequest(text: "To a few")).json(Post.self)
            // Reached when the post is answered, and no job was ever scheduled for it (the
            // job table's sequence did not move).
            let (reached, jobsAfter) = try await store.database.read { db in
                (
                    try Int.fetchOne(
                        db, sql: "SELECT COUNT(DISTINCT user_id) FROM timeline WHERE post_id = ?", arguments: [post.id]),
                    try Int.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'kit_job'") ?? 0
                )
            }
            #expect(reached == followers + 1)
            #expect(jobsAfter == jobsBefore)
        }
    }

    @Test func aPostReachesEveryFollowerInBatches() async throws {
        try await withFeed { harness, client, runner, store in
            let followers = TimelineFanOut.batch + 37
            try await store.database.write { db in
                for index in 0..<followers {
                    try FollowRecord(
                        followerId: String(format: "f0000000-0000-4000-8000-%012d", index), followeeId: Self.alice,
                        createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index % 7))
                    ).insert(db)
                }
            }
            let post = try await post(harness, client, CreatePostRequest(text: "To everyone")).json(Post.self)
            await runner.drain()
            let reached = try await store.database.read { db in
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(DISTINCT user_id) FROM timeline WHERE post_id = ?", arguments: [post.id])
            }
            #expect(reached == followers + 1)
        }
    }
}
