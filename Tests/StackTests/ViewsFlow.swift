import Foundation
import ServiceHTTP
import TestSupport
import Testing

/// Views across the real executables: Uma's post, friendship, message and notifications reach
/// Vic carrying her name and avatar, from each service's own copy of profiles and media; her
/// photo loads through the gateway from its view URL with no token, and an altered URL is
/// refused; a photo she sends him in a message loads from its view. When she renames herself and
/// changes her avatar, every one of Vic's screens (the nearby feed, his friends, his
/// notifications, his conversations) shows the change.
struct ViewsFlow {
    let flow: SliceFlow

    /// Vic's screens, as the name and avatar each shows for Uma.
    struct Screens: Equatable {
        var post: (String?, String?)
        var friend: (String?, String?)
        var notification: (String?, String?)
        var conversation: (String?, String?)

        static func == (a: Screens, b: Screens) -> Bool {
            [a.post, a.friend, a.notification, a.conversation].map { "\($0.0 ?? "-")|\($0.1 ?? "-")" }
                == [b.post, b.friend, b.notification, b.conversation].map { "\($0.0 ?? "-")|\($0.1 ?? "-")" }
        }
    }

    func screens(of vic: Person, post: String, uma: Person) async throws -> Screens {
        let shown = { (person: PersonView?) in (person?.displayName, person?.avatar?.id) }
        let nearby = try await flow.nearby(as: vic).first { $0.id == post }
        let friends = try await flow.call(.GET, "/v1/friends?limit=100", as: vic).decode(Page<Friend>.self).items
        let notifications = try await flow.notifications(of: vic)
        let conversations = try await flow.call(.GET, "/v1/messages/conversations?folder=inbox", as: vic)
            .decode(Page<Conversation>.self).items
        return Screens(
            post: shown(nearby?.author), friend: shown(friends.first { $0.userId == uma.id }?.user),
            notification: shown(notifications.first { $0.actorId == uma.id && $0.type == .message }?.actor),
            conversation: shown(conversations.first { $0.otherUserId == uma.id }?.other))
    }

    func run() async throws {
        let uma = try await flow.signUp("Uma")
        let vic = try await flow.signUp("Vic")
        let face = try await flow.upload(TestImages.jpeg(seed: 51, gps: false), as: uma)
        let avatar = try await flow.call(.PUT, "/v1/me/avatar", as: uma, json: AvatarUpdate(mediaId: face.id))
        #expect(avatar.status == 200, "\(avatar.text)")
        let photo = try await flow.upload(TestImages.jpeg(seed: 52, gps: false), as: uma)
        let post = try await flow.publish(photo, as: uma, caption: "Views from the bridge")
        _ = try await flow.befriend(vic, uma)
        // Vic follows her, so her message lands in his inbox.
        #expect(try await flow.call(.PUT, "/v1/users/\(uma.id)/follow", as: vic).status == 200)
        let sent = try await flow.call(
            .POST, "/v1/messages", as: uma, json: MessageDraft(recipientId: vic.id, text: "Hi"))
        #expect(sent.status == 201, "\(sent.text)")

        // Every screen of Vic's names Uma with her avatar, without asking auth or media per row.
        let first = Screens(
            post: ("Uma", face.id), friend: ("Uma", face.id), notification: ("Uma", face.id),
            conversation: ("Uma", face.id))
        var last: Screens?
        let shown = try await flow.eventually {
            last = try await screens(of: vic, post: post.id, uma: uma)
            return last == first
        }
        #expect(shown, "Vic's screens never showed Uma: \(String(describing: last))")

        // The post's photo loads from its view URL with no token, cacheable; altered, it is refused.
        let seen = try #require(try await flow.nearby(as: vic).first { $0.id == post.id })
        let view = try #require(seen.media?.first)
        #expect(view.id == photo.id && view.placeholder?.isEmpty == false && view.width != nil)
        let url = try #require(view.displayURL)
        let loaded = try await flow.call(.GET, url)
        #expect(loaded.status == 200 && loaded.header("content-type") == "image/jpeg", "\(loaded.text.prefix(200))")
        #expect(loaded.body.count > 1000)
        #expect(loaded.header("cache-control")?.contains("immutable") == true)
        let altered = url.hasSuffix("A") ? String(url.dropLast()) + "B" : String(url.dropLast()) + "A"
        #expect(try await flow.call(.GET, altered).status == 403)
        let otherVariant = url.replacingOccurrences(of: "/display?", with: "/thumbnail?")
        #expect(try await flow.call(.GET, otherVariant).status == 403)

        // All apps: a photo sent in a message loads for its recipient at once, from the view his
        // list of messages carries, with no token: the send kept media's description of the
        // photo in alerts' copy, without waiting for `media.described`.
        let snapshot = try await flow.upload(TestImages.jpeg(seed: 54, gps: false), as: uma)
        let photoMessage = try await flow.call(
            .POST, "/v1/messages", as: uma, json: MessageDraft(recipientId: vic.id, mediaId: snapshot.id))
        #expect(photoMessage.status == 201, "\(photoMessage.text)")
        let conversation = try photoMessage.decode(DirectMessage.self).conversationId
        let sharedURL = try await flow.call(.GET, "/v1/messages/conversations/\(conversation)/messages", as: vic)
            .decode(Page<DirectMessage>.self).items.first { $0.mediaId == snapshot.id }?.media?.displayURL
        #expect(sharedURL != nil, "the message's view carried no URL when it was answered")
        if let sharedURL {
            let sharedPhoto = try await flow.call(.GET, sharedURL)
            #expect(sharedPhoto.status == 200 && sharedPhoto.header("content-type") == "image/jpeg")
        }

        // Uma renames herself and shows another avatar: every screen follows.
        let newFace = try await flow.upload(TestImages.jpeg(seed: 53, gps: false), as: uma)
        let renamed = try await flow.call(.PATCH, "/v1/me", as: uma, json: ProfileUpdate(displayName: "Uma Vance"))
        #expect(renamed.status == 200, "\(renamed.text)")
        #expect(
            try await flow.call(.PUT, "/v1/me/avatar", as: uma, json: AvatarUpdate(mediaId: newFace.id)).status == 200)
        let started = ContinuousClock.now
        let changed = Screens(
            post: ("Uma Vance", newFace.id), friend: ("Uma Vance", newFace.id),
            notification: ("Uma Vance", newFace.id), conversation: ("Uma Vance", newFace.id))
        let followed = try await flow.eventually {
            last = try await screens(of: vic, post: post.id, uma: uma)
            return last == changed
        }
        #expect(followed, "Vic's screens never followed Uma's change: \(String(describing: last))")
        print("views: a rename and a new avatar reached all four screens in \(ContinuousClock.now - started)")
    }
}
