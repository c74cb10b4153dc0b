import Foundation
import ServiceHTTP
import TestSupport
import Testing

/// An Agora session over the real executables, on the notifications stack: Ada and Ben pick
/// usernames and follow each other; Ada posts text with a link and a photo; Ben finds it in his
/// following feed (written by feed's fan-out job) and is told she mentioned him; he answers
/// in a thread, likes and reposts it; For You offers it with why until he has seen it;
/// profiles count it all (through `profile.counts_changed` at auth); every notification
/// arrives once; Ben mutes a word of it and it leaves his feed, then mutes Ada herself for a
/// while; Ada shows a photo as her avatar; Ada deletes the post and it leaves hers, its thread
/// keeping a placeholder.
struct AgoraStoryFlow {
    let flow: SliceFlow
    /// The app whose devices attest (posting needs a recent assertion on this stack).
    let app: AppAttestFixture

    func following(_ person: Person) async throws -> [TimelineItem] {
        try await flow.call(.GET, "/v1/feed/following?limit=50", as: person).decode(Page<TimelineItem>.self).items
    }

    func run() async throws {
        let ada = try await flow.signUp("Ada")
        let ben = try await flow.signUp("Ben")
        for (person, name) in [(ada, "ada_k"), (ben, "ben.r")] {
            let named = try await flow.call(.PATCH, "/v1/me", as: person, json: ProfileUpdate(username: name))
            #expect(named.status == 200, "\(named.text)")
        }
        let check = try await flow.call(.GET, "/v1/auth/check-username/ADA_K")
        #expect(try check.decode(UsernameAvailability.self).reason == "taken")

        // Ada shows a photo as her avatar: auth asks media whose it is, media makes it public.
        let face = try await flow.upload(TestImages.jpeg(seed: 37, gps: false), as: ada)
        #expect(try await flow.call(.GET, "/v1/media/\(face.id)/thumbnail", as: ben).status == 404)
        let avatar = try await flow.call(.PUT, "/v1/me/avatar", as: ada, json: AvatarUpdate(mediaId: face.id))
        let avatarURL = try #require(try avatar.decode(UserProfile.self).avatarURL, "\(avatar.text)")
        #expect(
            try await flow.call(.GET, "/v1/users/\(ada.id)", as: ben).decode(PublicProfile.self).avatarURL == avatarURL)
        #expect(
            await flow.eventually { (try? await flow.call(.GET, avatarURL, as: ben).status) == 200 },
            "Ben never saw Ada's avatar")
        let notHers = try await flow.call(.PUT, "/v1/me/avatar", as: ben, json: AvatarUpdate(mediaId: face.id))
        #expect(notHers.status == 404)

        // Both attest their phones: posting needs it here.
        for person in [ada, ben] { try await AgoraPrivateFlow.attest(person, with: app.anotherDevice(), flow: flow) }

        // Ben follows Ada; she is told, and her profile counts him.
        let followed = try await flow.call(.PUT, "/v1/users/\(ada.id)/follow", as: ben)
        #expect(try followed.decode(FollowState.self).following, "\(followed.text)")
        #expect(
            await flow.eventually {
                let profile = try? await flow.call(.GET, "/v1/users/by-username/ada_k", as: ben)
                    .decode(PublicProfile.self)
                return profile?.counts.followers == 1
            }, "Ada's profile never counted Ben")

        // Ada posts words, a link and a photo; it reaches Ben's following feed.
        let photo = try await flow.upload(TestImages.jpeg(seed: 31, gps: false), as: ada)
        let created = try await flow.acknowledged(
            .POST, "/v1/posts", as: ada,
            json: CreatePostRequest(
                text: "Golden hour at the pier with @ben.r", linkURL: "https://example.com/pier", mediaIds: [photo.id]),
            headers: [("idempotency-key", "agora-ada-1")])
        #expect(created.status == 201, "\(created.text)")
        let post = try created.decode(Post.self)
        #expect(
            await flow.eventually { (try? await following(ben))?.first?.post.id == post.id },
            "Ada's post never reached Ben's following feed")
        #expect(try await flow.call(.GET, "/v1/media/\(photo.id)", as: ben).status == 200)
        // Agora's timeline row draws from this one answer: Ada's name, handle and avatar, and the
        // photo's size, placeholder and a URL an image loader fetches without a token.
        var row: TimelineItem?
        #expect(
            await flow.eventually {
                row = try? await following(ben).first { $0.post.id == post.id }
                return row?.post.media?.first?.thumbnailURL != nil
            }, "Ada's photo never showed in Ben's timeline: \(String(describing: row))")
        #expect(row?.post.author?.username == "ada_k" && row?.post.author?.avatar?.id == face.id)
        let shown = try #require(row?.post.media?.first)
        #expect(shown.id == photo.id && shown.aspectRatio != nil && shown.placeholder != nil)
        let thumbnail = try #require(shown.thumbnailURL)
        #expect(try await flow.call(.GET, thumbnail).status == 200)

        // A thread: Ben answers, Ada answers him; Ben likes and reposts.
        let reply = try await flow.call(
            .POST, "/v1/posts", as: ben, json: CreatePostRequest(text: "Which pier?", replyTo: post.id))
        #expect(reply.status == 201, "\(reply.text)")
        let benReply = try reply.decode(Post.self)
        let answer = try await flow.call(
            .POST, "/v1/posts", as: ada, json: CreatePostRequest(text: "Santa Monica", replyTo: benReply.id))
        #expect(try answer.decode(Post.self).rootId == post.id)
        #expect(try await flow.call(.PUT, "/v1/posts/\(post.id)/like", as: ben).decode(Post.self).likeCount == 1)
        #expect(try await flow.call(.PUT, "/v1/posts/\(post.id)/repost", as: ben).decode(Post.self).repostCount == 1)
        let thread = try await flow.call(.GET, "/v1/posts/\(post.id)/replies", as: ada).decode(Page<Post>.self)
        #expect(thread.items.map(\.id) == [benReply.id])

        // Every notification once, each opening what it is about.
        let expected: [(Person, [NotificationType: String])] = [
            (
                ada,
                [
                    .newFollower: "/profile/\(ben.id)", .reply: "/posts/\(benReply.id)", .like: "/posts/\(post.id)",
                    .repost: "/posts/\(post.id)",
                ]
            ),
            (ben, [.reply: "/posts/\(try answer.decode(Post.self).id)", .mention: "/posts/\(post.id)"]),
        ]
        for (person, links) in expected {
            var listed: [AppNotification] = []
            #expect(
                await flow.eventually {
                    listed = (try? await flow.notifications(of: person)) ?? []
                    return listed.count >= links.count
                }, "\(person.name) has \(listed.map(\.type))")
            #expect(listed.count == links.count, "\(person.name): \(listed.map(\.type))")
            for notification in listed {
                #expect(links[notification.type] == notification.link, "\(notification)")
            }
        }
        #expect(
            await flow.eventually {
                let counts = try? await flow.call(.GET, "/v1/users/\(ada.id)", as: ben).decode(PublicProfile.self)
                    .counts
                return counts == ProfileCounts(followers: 1, following: 0, posts: 2)
            }, "Ada's profile counts")

        // For You offers Ben Ada's post, with why; once he reports it seen, not again today.
        let forYou = try await flow.call(.GET, "/v1/feed/for-you?seed=7", as: ben).decode(Page<ForYouItem>.self)
        let picked = try #require(forYou.items.first { $0.post.id == post.id }, "\(forYou.items.map(\.post.text))")
        #expect(picked.reasons.contains("You follow the author") && picked.debug == nil)
        #expect(!forYou.items.contains { $0.post.authorId == ben.id })
        let seen = try await flow.call(
            .POST, "/v1/feed/signals", as: ben,
            json: FeedSignalBatch(signals: [FeedSignal(id: "ben-seen-1", postId: post.id, kind: .seen)]))
        #expect(seen.status == 202, "\(seen.text)")
        #expect(
            try await flow.call(.GET, "/v1/feed/for-you?seed=7", as: ben).decode(Page<ForYouItem>.self).items
                .allSatisfy { $0.post.id != post.id })

        // Ben mutes "Pier" at moderation: feed learns it and keeps the post out of his feed
        // (Ada's own feed still has it).
        let muted = try await flow.call(.POST, "/v1/mutes/words", as: ben, json: KeywordMuteCreate(phrase: "Pier"))
        #expect(muted.status == 201, "\(muted.text)")
        #expect(
            await flow.eventually { (try? await following(ben))?.contains { $0.post.id == post.id } == false },
            "the muted post stayed in Ben's feed")
        #expect(try await following(ada).contains { $0.post.id == post.id })

        // Ben mutes Ada herself: her other posts leave his feed and she leaves his people search;
        // she is not told and nothing changes for her. He lifts it.
        let other = try await flow.call(.POST, "/v1/posts", as: ada, json: CreatePostRequest(text: "Second light"))
        let second = try other.decode(Post.self)
        #expect(
            await flow.eventually { (try? await following(ben))?.contains { $0.post.id == second.id } == true },
            "Ada's second post never reached Ben")
        let mutedAda = try await flow.call(.POST, "/v1/mutes/users", as: ben, json: BlockCreate(userId: ada.id))
        #expect(mutedAda.status == 201, "\(mutedAda.text)")
        #expect(
            await flow.eventually {
                let feed = try? await following(ben)
                let found = try? await flow.call(.GET, "/v1/users/search?q=ada", as: ben).decode(Page<UserSummary>.self)
                return feed?.contains { $0.post.authorId == ada.id } == false && found?.items.isEmpty == true
            }, "the muted Ada stayed in Ben's feed or search")
        #expect(try await flow.call(.GET, "/v1/users/\(ada.id)", as: ben).status == 200)
        #expect(try await flow.call(.DELETE, "/v1/mutes/users/\(ada.id)", as: ben).status == 204)
        #expect(
            await flow.eventually { (try? await following(ben))?.contains { $0.post.id == second.id } == true },
            "Ada's post never came back once unmuted")

        // Ada deletes the post: it leaves every feed; the thread keeps a placeholder.
        #expect(try await flow.call(.DELETE, "/v1/posts/\(post.id)", as: ada).status == 204)
        #expect(try await following(ada).allSatisfy { $0.post.id != post.id })
        let placeholder = try await flow.call(.GET, "/v1/posts/\(post.id)", as: ben).decode(Post.self)
        #expect(placeholder.deleted == true && placeholder.text.isEmpty && placeholder.replyCount == 1)
    }
}
