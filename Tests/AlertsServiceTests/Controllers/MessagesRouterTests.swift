import Contracts
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import Synchronization
import TestSupport
import Testing

@testable import AlertsService

@Suite struct MessagesRouterTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"
    static let carol = "00000000-0000-4000-8000-00000000000c"
    static let stranger = "00000000-0000-4000-8000-0000000000ff"
    static let photo = "30000000-0000-4000-8000-000000000001"
    static let processing = "30000000-0000-4000-8000-000000000002"
    static let carolsPhoto = "30000000-0000-4000-8000-000000000003"
    /// Uploaded a moment ago: media's answer to the lookup describes it, but no
    /// `media.described` has reached alerts yet.
    static let freshPhoto = "30000000-0000-4000-8000-000000000004"

    /// Alerts with Alice, Bob and Carol known to auth; Bob follows Alice (not Carol).
    /// `asked` collects the ids auth is asked about.
    func withMessages(
        config: [String: String] = [:], asked: Asked? = nil,
        _ body: @escaping @Sendable (ServiceHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        let harness = try ServiceHarness(.alerts, config: config)
        let names = [Self.alice: "Alice", Self.bob: "Bob", Self.carol: "Carol"]
        let known = Lookup<UserSummary>.fixed(names.mapValues { UserSummary(id: "", displayName: $0) })
        let dependencies = AlertsDependencies(
            users: Lookup { id in
                asked?.ids.withLock { $0.append(id) }
                return try await known.find(id)
            },
            media: .fixed([
                Self.photo: MediaSummary(
                    id: Self.photo, ownerId: Self.alice, contentType: "image/jpeg", status: .ready),
                Self.processing: MediaSummary(
                    id: Self.processing, ownerId: Self.alice, contentType: "video/mp4", status: .processing),
                Self.carolsPhoto: MediaSummary(
                    id: Self.carolsPhoto, ownerId: Self.carol, contentType: "image/jpeg", status: .ready),
                Self.freshPhoto: MediaSummary(
                    id: Self.freshPhoto, ownerId: Self.alice, contentType: "image/jpeg", status: .ready,
                    described: ServiceHarness.described(
                        MediaSummary(
                            id: Self.freshPhoto, ownerId: Self.alice, contentType: "image/jpeg", status: .ready))),
            ]),
            follows: .fixed([
                "\(Self.bob)/\(Self.alice)": FollowEdge(followerId: Self.bob, followeeId: Self.alice, since: Date())
            ]))
        let parts = try await AlertsService.buildRouter(
            runtime: harness.runtime, reader: harness.reader, dependencies: dependencies)
        try await harness.test(parts) { client in try await body(harness, client) }
    }

    final class Asked: Sendable {
        let ids = Mutex<[String]>([])
    }

    /// A message's two people come from alerts' copy of profiles (kept by auth's
    /// `profile.changed`): auth is asked only about one the copy does not hold yet, and one the
    /// copy holds as deleted is a 404 whatever auth would say.
    @Test func theTwoPeopleOfAMessageComeFromTheCopyOfProfilesBeforeAuthIsAsked() async throws {
        let asked = Asked()
        try await withMessages(asked: asked) { harness, client in
            try await harness.database().write { db in
                for (id, name, deleted) in [
                    (Self.alice, "Alice", false), (Self.bob, "Bob", false), (Self.carol, "", true),
                ] {
                    _ = try ProfileMirror.apply(
                        ProfileChanged(
                            userId: id, username: nil, displayName: name, avatarMediaId: nil, deleted: deleted,
                            revision: 2), in: db)
                }
            }
            let alice = try await harness.token(for: Self.alice)
            #expect(try await send(client, alice, to: Self.bob, text: "hi").status == .created)
            #expect(asked.ids.withLock { $0 }.isEmpty)
            #expect(try await send(client, alice, to: Self.carol, text: "hi").status == .notFound)
            #expect(asked.ids.withLock { $0 }.isEmpty, "Carol's deletion is in the copy")
            #expect(try await send(client, alice, to: Self.stranger, text: "hi").status == .notFound)
            #expect(asked.ids.withLock { $0 } == [Self.stranger])
        }
    }

    func send(
        _ client: any TestClientProtocol, _ token: String, to recipient: String? = nil, in conversation: String? = nil,
        text: String? = nil, media: String? = nil
    ) async throws -> TestResponse {
        let path = conversation.map { "/v1/messages/conversations/\($0)/messages" } ?? "/v1/messages"
        return try await client.post(
            path, MessageDraft(recipientId: recipient, text: text, mediaId: media), token: token)
    }

    @Test func whenConfiguredMessagesWaitForAProvenEmailAddress() async throws {
        try await withMessages(config: ["accounts.requireVerifiedEmail": "true"]) { harness, client in
            // Tokens here carry no session state, so nobody's address counts as proven.
            let alice = try await harness.token(for: Self.alice)
            let new = try await send(client, alice, to: Self.bob, text: "hi")
            #expect(new.status == .forbidden && new.error?.code == .emailVerificationRequired)
            let reply = try await send(client, alice, in: "00000000-0000-0000-0000-000000000000", text: "hi")
            #expect(reply.error?.code == .emailVerificationRequired)
        }
    }

    func notifications(_ client: any TestClientProtocol, _ token: String) async throws -> [AppNotification] {
        try await client.get("/v1/notifications", token: token).json(Page<AppNotification>.self).items
    }

    func folder(
        _ client: any TestClientProtocol, _ token: String, _ folder: MessageFolder
    ) async throws
        -> [Conversation]
    {
        try await client.allPages(
            "/v1/messages/conversations?folder=\(folder.rawValue)", token: token, of: Conversation.self)
    }

    @Test func aMessageReportsHideIsHiddenFromItsRecipientUntilAModeratorShowsItAgain() async throws {
        try await withMessages { harness, client in
            let (alice, bob) = (try await harness.token(for: Self.alice), try await harness.token(for: Self.bob))
            let first = try await send(client, alice, to: Self.bob, text: "You will regret this").json(
                DirectMessage.self)
            _ = try await send(client, alice, in: first.conversationId, text: "Anyway, hi")
            #expect(
                try await notifications(client, bob).map(\.body).sorted() == ["Anyway, hi", "You will regret this"])
            func texts(_ token: String) async throws -> [String] {
                try await client.get("/v1/messages/conversations/\(first.conversationId)/messages", token: token)
                    .json(Page<DirectMessage>.self).items.compactMap(\.text)
            }
            func apply(_ change: @escaping @Sendable (Database) throws -> Void) async throws {
                try await harness.database().write(change)
            }
            try await apply { db in
                try AlertsStore.hideMessage(first.id, in: db)
                try AlertsStore.hideMessage(first.id, in: db)
            }
            #expect(try await texts(bob) == ["Anyway, hi"])
            #expect(try await texts(alice) == ["Anyway, hi", "You will regret this"])
            // The notification that quoted it is gone too; the other stays.
            #expect(try await notifications(client, bob).map(\.body) == ["Anyway, hi"])
            try await apply { db in try AlertsStore.restoreMessage(first.id, in: db) }
            #expect(try await texts(bob) == ["Anyway, hi", "You will regret this"])
        }
    }

    @Test func followersLandInTheInboxAndStrangersInRequests() async throws {
        try await withMessages { harness, client in
            let (alice, bob, carol) = (
                try await harness.token(for: Self.alice), try await harness.token(for: Self.bob),
                try await harness.token(for: Self.carol)
            )
            // Bob follows Alice: her first message is in his inbox and tells him with its words.
            let first = try await send(client, alice, to: Self.bob, text: "  Hi Bob!  ")
            #expect(first.status == .created)
            let hello = try first.json(DirectMessage.self)
            #expect(hello.text == "Hi Bob!" && hello.senderId == Self.alice)
            let told = try await notifications(client, bob)
            #expect(told.map(\.type) == [.message])
            #expect(
                told.first.map { [$0.title, $0.body, $0.link] } == [
                    "Alice", "Hi Bob!", "/messages/\(hello.conversationId)",
                ])
            #expect(told.first?.data == ["conversationId": hello.conversationId, "messageId": hello.id])

            // Bob does not follow Carol: her messages wait in requests, told once.
            let request = try await send(client, carol, to: Self.bob, text: "Hey, saw your post").json(
                DirectMessage.self)
            _ = try await send(client, carol, to: Self.bob, text: "Are you there?")
            #expect(
                try await notifications(client, bob).map(\.type).sorted { $0.rawValue < $1.rawValue } == [
                    .message, .messageRequest,
                ])
            #expect(try await folder(client, bob, .inbox).map(\.otherUserId) == [Self.alice])
            let requests = try await folder(client, bob, .requests)
            #expect(requests.map(\.otherUserId) == [Self.carol])
            #expect(requests.first?.unreadCount == 2 && requests.first?.lastMessage?.text == "Are you there?")
            #expect(
                try await client.get("/v1/messages/unread-count", token: bob).json(MessagesUnread.self)
                    == MessagesUnread(inbox: 1, requests: 1))
            // Carol's own side is in her inbox, read.
            let carols = try await folder(client, carol, .inbox)
            #expect(carols.map(\.otherUserId) == [Self.bob] && carols.first?.unreadCount == 0)

            // Reading reads the conversation's notifications too.
            let read = try await client.request(
                .post, "/v1/messages/conversations/\(request.conversationId)/read", token: bob
            ).json(Conversation.self)
            #expect(read.unreadCount == 0 && read.folder == .requests)
            #expect(
                try await client.get("/v1/notifications/unread-count", token: bob).json(UnreadCount.self).count == 1)
            // Accepting moves it to the inbox; answering would have too.
            let accepted = try await client.request(
                .post, "/v1/messages/conversations/\(request.conversationId)/accept", token: bob
            ).json(Conversation.self)
            #expect(accepted.folder == .inbox)
            #expect(Set(try await folder(client, bob, .inbox).map(\.otherUserId)) == [Self.alice, Self.carol])
            #expect(try await folder(client, bob, .requests).isEmpty)

            // Answering in the conversation reaches Carol, now from her inbox.
            let answer = try await send(client, bob, in: request.conversationId, text: "Yes!")
            #expect(answer.status == .created)
            #expect(try await notifications(client, carol).map(\.body) == ["Yes!"])

            // Someone else's conversation does not exist for them.
            #expect(
                try await client.get("/v1/messages/conversations/\(hello.conversationId)", token: carol).status
                    == .notFound)
            #expect(
                try await send(client, carol, in: hello.conversationId, text: "Let me in").status == .notFound)
            #expect(
                try await client.get("/v1/messages/conversations/\(hello.conversationId)/messages", token: carol)
                    .status == .notFound)
            #expect(try await client.request(.delete, "/v1/messages/\(hello.id)", token: carol).status == .notFound)
            #expect(
                try await send(client, carol, to: Self.alice, in: request.conversationId, text: "x").status
                    == .badRequest)
        }
    }

    @Test func messagesPageAndDeleteForOneSideOnly() async throws {
        try await withMessages { harness, client in
            let (alice, bob) = (try await harness.token(for: Self.alice), try await harness.token(for: Self.bob))
            var sent: [DirectMessage] = []
            for index in 0..<5 {
                sent.append(try await send(client, alice, to: Self.bob, text: "m\(index)").json(DirectMessage.self))
            }
            let conversation = sent[0].conversationId
            #expect(Set(sent.map(\.conversationId)).count == 1)
            let path = "/v1/messages/conversations/\(conversation)/messages?limit=2"
            let paged = try await client.allPages(path, token: bob, of: DirectMessage.self)
            #expect(paged.map(\.text) == ["m4", "m3", "m2", "m1", "m0"])
            #expect(try await client.get(path + "&cursor=nope", token: bob).status == .badRequest)
            // An empty cursor is the first page.
            let first = try await client.get(path + "&cursor=", token: bob).json(Page<DirectMessage>.self)
            #expect(first.items.map(\.text) == ["m4", "m3"])

            // Bob deletes one message, then the conversation; Alice sees all five throughout.
            #expect(try await client.request(.delete, "/v1/messages/\(sent[4].id)", token: bob).status == .noContent)
            #expect(try await client.request(.delete, "/v1/messages/\(sent[4].id)", token: bob).status == .notFound)
            let bobs = try await client.get("/v1/messages/conversations/\(conversation)", token: bob).json(
                Conversation.self)
            #expect(bobs.lastMessage?.text == "m3" && bobs.unreadCount == 4)
            #expect(
                try await client.request(.delete, "/v1/messages/conversations/\(conversation)", token: bob).status
                    == .noContent)
            #expect(try await folder(client, bob, .inbox).isEmpty)
            #expect(try await client.get("/v1/messages/unread-count", token: bob).json(MessagesUnread.self).inbox == 0)
            #expect(
                try await client.get("/v1/notifications/unread-count", token: bob).json(UnreadCount.self).count == 0)
            let alices = try await client.allPages(
                "/v1/messages/conversations/\(conversation)/messages", token: alice, of: DirectMessage.self)
            #expect(alices.count == 5)

            // A new message brings the conversation back to Bob with only itself.
            _ = try await send(client, alice, in: conversation, text: "still there?")
            let back = try await folder(client, bob, .inbox)
            #expect(back.map(\.unreadCount) == [1] && back.first?.lastMessage?.text == "still there?")
            #expect(
                try await client.allPages(
                    "/v1/messages/conversations/\(conversation)/messages", token: bob, of: DirectMessage.self
                ).map(\.text) == ["still there?"])
            // A message deleted with the conversation cannot be deleted again.
            #expect(try await client.request(.delete, "/v1/messages/\(sent[0].id)", token: bob).status == .notFound)
        }
    }

    @Test func blocksStopMessagesBothWaysAndMutedWordsHideThem() async throws {
        try await withMessages { harness, client in
            let (alice, bob) = (try await harness.token(for: Self.alice), try await harness.token(for: Self.bob))
            let first = try await send(client, alice, to: Self.bob, text: "before").json(DirectMessage.self)

            // Words Bob muted: Alice's message is hers alone, and tells him nothing.
            try await harness.database().write { db in
                try KeywordMuteMirror.apply(
                    KeywordMutesChanged(
                        userId: Self.bob, mutes: [MutedPhrase(phrase: "crypto", until: nil)], revision: 1), in: db)
            }
            let muted = try await send(client, alice, in: first.conversationId, text: "Buy CRYPTO now")
            #expect(muted.status == .created)
            let bobSees = try await client.allPages(
                "/v1/messages/conversations/\(first.conversationId)/messages", token: bob, of: DirectMessage.self)
            #expect(bobSees.map(\.text) == ["before"])
            #expect(try await notifications(client, bob).count == 1)
            let aliceSees = try await client.allPages(
                "/v1/messages/conversations/\(first.conversationId)/messages", token: alice, of: DirectMessage.self)
            #expect(aliceSees.map(\.text) == ["Buy CRYPTO now", "before"])

            // A block, either way round, stops messages both ways.
            try await harness.database().write { db in
                try BlockMirror.apply(UserBlocked(blockerId: Self.bob, blockedId: Self.alice), in: db)
            }
            for (token, recipient) in [(alice, Self.bob), (bob, Self.alice)] {
                let refused = try await send(client, token, to: recipient, text: "after")
                #expect(refused.status == .forbidden && refused.error?.code == .cannotMessage)
                let inConversation = try await send(client, token, in: first.conversationId, text: "after")
                #expect(inConversation.error?.code == .cannotMessage)
            }
            #expect(try await notifications(client, bob).count == 1)
            try await harness.database().write { db in
                try BlockMirror.apply(UserUnblocked(blockerId: Self.bob, blockedId: Self.alice), in: db)
            }
            #expect(try await send(client, bob, to: Self.alice, text: "unblocked").status == .created)
        }
    }

    @Test func draftsAreCheckedAndMediaIsSharedWithTheRecipientOnly() async throws {
        try await withMessages { harness, client in
            let alice = try await harness.token(for: Self.alice)
            let cases: [(MessageDraft, HTTPResponse.Status)] = [
                (MessageDraft(recipientId: Self.bob), .badRequest),
                (MessageDraft(recipientId: Self.bob, text: "   "), .badRequest),
                (MessageDraft(recipientId: Self.bob, text: String(repeating: "a", count: 2001)), .badRequest),
                (MessageDraft(text: "no one"), .badRequest),
                (MessageDraft(recipientId: "bob", text: "x"), .badRequest),
                (MessageDraft(recipientId: Self.alice, text: "me"), .badRequest),
                (MessageDraft(recipientId: Self.stranger, text: "x"), .notFound),
                (MessageDraft(recipientId: Self.bob, mediaId: Self.carolsPhoto), .notFound),
                (MessageDraft(recipientId: Self.bob, mediaId: Self.stranger), .notFound),
                (MessageDraft(recipientId: Self.bob, mediaId: Self.processing), .conflict),
            ]
            for (draft, status) in cases {
                #expect(try await client.post("/v1/messages", draft, token: alice).status == status, "\(draft)")
            }
            // Nothing was stored by any of those.
            #expect(try await folder(client, alice, .inbox).isEmpty)
            #expect(try harness.outboxEvents(MediaAttached.self).isEmpty)

            let photo = try await send(client, alice, to: Self.bob, media: Self.photo)
            #expect(photo.status == .created)
            let message = try photo.json(DirectMessage.self)
            #expect(message.mediaId == Self.photo && message.text == nil)
            let attached = try harness.outboxEvents(MediaAttached.self)
            #expect(
                attached == [
                    MediaAttached(
                        mediaId: Self.photo, ownerId: Self.alice, visibility: .private, referenceType: "message",
                        referenceId: message.id, readers: [Self.bob])
                ])
            let bob = try await harness.token(for: Self.bob)
            #expect(try await notifications(client, bob).first?.body == "Sent a photo")
            #expect(try await client.get("/v1/messages/conversations?folder=spam", token: bob).status == .badRequest)
            #expect(try await client.get("/v1/messages/conversations").status == .unauthorized)
        }
    }

    /// Alerts' own store, opened beside the running service.
    func store(_ harness: ServiceHarness) throws -> AlertsStore {
        let file = try harness.runtime.settings.ownDirectory().appendingPathComponent("alerts.sqlite")
        let database = try DatabasePool(path: file.path)
        return AlertsStore(
            database: database, outbox: harness.runtime.makeOutbox(),
            views: harness.runtime.makeViews(database: database).views)
    }

    @Test func theStreamCarriesTheMessageAndPushFollowsTheMessagePreference() async throws {
        try await withMessages { harness, client in
            let (alice, bob) = (try await harness.token(for: Self.alice), try await harness.token(for: Self.bob))
            let store = try store(harness)
            _ = try await send(client, alice, to: Self.bob, text: "one")
            let first = try #require(try await notifications(client, bob).first)
            let second = try await send(client, alice, to: Self.bob, text: "two").json(DirectMessage.self)
            // A reconnecting stream replays the notification with the message whole.
            let missed = try await store.missed(after: first.id, of: Self.bob, limit: 10)
            let replayed = try #require(missed.records.first)
            #expect(missed.records.count == 1 && missed.messages[replayed.id] == second)

            // Pushed by default; not once Bob turns `message` off (requests follow it).
            let now = harness.clock.now()
            #expect(try await store.pushPlan(for: replayed.id, now: now) != nil)
            let off = try await client.send(
                .put, "/v1/me/notification-preferences", NotificationPreferences(push: ["message": false]), token: bob)
            #expect(off.status == .ok, "\(off.body)")
            #expect(try await store.pushPlan(for: replayed.id, now: now) == nil)
            let governed = try await client.send(
                .put, "/v1/me/notification-preferences", NotificationPreferences(push: ["message_request": false]),
                token: bob)
            #expect(governed.status == .badRequest)
        }
    }

    @Test func openingConversationsIsLimitedADay() async throws {
        try await withMessages(config: ["alerts.messages.newConversationsPerDay": "1"]) { harness, client in
            let alice = try await harness.token(for: Self.alice)
            let first = try await send(client, alice, to: Self.bob, text: "hi").json(DirectMessage.self)
            let refused = try await send(client, alice, to: Self.carol, text: "hi")
            #expect(refused.status == .tooManyRequests && refused.error?.code == .rateLimitExceeded)
            #expect(refused.headers[.retryAfter] != nil)
            // Writing in a conversation already open is not limited; a day later she may open another.
            #expect(try await send(client, alice, in: first.conversationId, text: "again").status == .created)
            harness.clock.advance(by: 86_401)
            let later = try await harness.token(for: Self.alice)
            #expect(try await send(client, later, to: Self.carol, text: "hi").status == .created)
        }
    }

    @Test func answeringReadsAndAnErasedAccountTakesItsMessagesAndTheirNotifications() async throws {
        try await withMessages { harness, client in
            let (alice, bob) = (try await harness.token(for: Self.alice), try await harness.token(for: Self.bob))
            let hello = try await send(client, alice, to: Self.bob, text: "Hello Bob").json(DirectMessage.self)
            #expect(
                try await client.get("/v1/notifications/unread-count", token: bob).json(UnreadCount.self).count == 1)
            // Bob answers without opening it: his side is read, and so is its notification.
            _ = try await send(client, bob, in: hello.conversationId, text: "Hi Alice")
            let answered = try await folder(client, bob, .inbox)
            #expect(answered.first?.unreadCount == 0, "\(answered)")
            #expect(
                try await client.get("/v1/notifications/unread-count", token: bob).json(UnreadCount.self).count == 0)

            try await harness.database().write { db in try AlertsStore.erase(userID: Self.alice, in: db) }
            let left = try await client.allPages(
                "/v1/messages/conversations/\(hello.conversationId)/messages", token: bob, of: DirectMessage.self)
            #expect(left.map(\.text) == ["Hi Alice"])
            #expect(try await notifications(client, bob).isEmpty)
            #expect(try await folder(client, alice, .inbox).isEmpty)
        }
    }

    @Test func moderationSeesAReportedMessageWithItsNeighboursOnly() async throws {
        try await withMessages { harness, client in
            let alice = try await harness.token(for: Self.alice)
            let carol = try await harness.token(for: Self.carol)
            var sent: [DirectMessage] = []
            for index in 0..<12 {
                sent.append(try await send(client, alice, to: Self.bob, text: "a\(index)").json(DirectMessage.self))
            }
            _ = try await send(client, carol, to: Self.bob, text: "elsewhere")
            // Only moderation's certificate may ask.
            let refused = try await client.get("/internal/messages/\(sent[6].id)/context")
            #expect(refused.error?.code == .peerNotAllowed)

            let store = try store(harness)
            let found = try #require(try await store.context(ofMessage: sent[6].id, around: 5))
            #expect(found.message.id == sent[6].id)
            #expect(found.context.map(\.text) == (1...11).map { "a\($0)" })
            #expect(found.participants.sorted() == [Self.alice, Self.bob])
            #expect(try await store.context(ofMessage: Self.stranger, around: 5) == nil)
        }
    }
}
