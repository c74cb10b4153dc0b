import Foundation
import HummingbirdTesting
import ServiceHTTP
import TestSupport
import Testing

@testable import AlertsService

/// What the notification centre and the inbox carry for their screens: who acted, who the
/// conversation is with, and a message's photo as a view the recipient loads without a token.
@Suite struct AlertsViewsRouterTests {
    typealias Messages = MessagesRouterTests
    let messages = MessagesRouterTests()

    static let people = [
        UserSummary(id: Messages.alice, displayName: "Alice", username: "alice"),
        UserSummary(id: Messages.bob, displayName: "Bob", username: "bob"),
    ]
    static let media = [
        MediaSummary(id: Messages.photo, ownerId: Messages.alice, contentType: "image/jpeg", status: .ready)
    ]

    @Test func notificationsConversationsAndMessagesCarryTheirPeopleAndMedia() async throws {
        try await messages.withMessages { harness, client in
            try harness.mirror(people: Self.people, media: Self.media, avatars: [Messages.alice: Messages.photo])
            let (alice, bob) = (
                try await harness.token(for: Messages.alice), try await harness.token(for: Messages.bob)
            )
            let sent = try await messages.send(client, alice, to: Messages.bob, text: "Look", media: Messages.photo)
            #expect(sent.status == .created)

            let notification = try #require(try await messages.notifications(client, bob).first)
            #expect(notification.actorId == Messages.alice)
            #expect(notification.actor?.displayName == "Alice" && notification.actor?.username == "alice")
            #expect(notification.actor?.avatar?.thumbnailURL?.hasPrefix("/v1/media/views/\(Messages.photo)/") == true)
            // Marking it read answers it as the list shows it, actor and all.
            let read = try await client.request(.post, "/v1/notifications/\(notification.id)/read", token: bob)
                .json(AppNotification.self)
            #expect(read.readAt != nil && read.actor == notification.actor)

            let conversation = try #require(try await messages.folder(client, bob, .inbox).first)
            #expect(conversation.other?.id == Messages.alice && conversation.other?.displayName == "Alice")
            // Alice's side of the same conversation shows Bob.
            #expect(try await messages.folder(client, alice, .inbox).first?.other?.displayName == "Bob")

            let page = try await client.get("/v1/messages/conversations/\(conversation.id)/messages", token: bob)
                .json(Page<DirectMessage>.self)
            let photo = try #require(page.items.first?.media)
            #expect(photo.id == Messages.photo && photo.kind == .photo && photo.placeholder != nil)
            #expect(photo.displayURL?.hasPrefix("/v1/media/views/\(Messages.photo)/display?exp=") == true)

            // A rename shows in the inbox at the next read.
            try harness.mirror(people: [UserSummary(id: Messages.alice, displayName: "Alice L", username: "alice")])
            #expect(try await messages.folder(client, bob, .inbox).first?.other?.displayName == "Alice L")
            #expect(try await messages.notifications(client, bob).first?.actor?.displayName == "Alice L")
        }
    }

    /// All apps: a DM photo just sent is loadable by its recipient at once. The send keeps
    /// what media answered of the photo, so the view has its URLs before `media.described`
    /// reaches alerts.
    @Test func aPhotoJustSentHasItsURLsBeforeMediaDescribesIt() async throws {
        try await messages.withMessages { harness, client in
            let (alice, bob) = (
                try await harness.token(for: Messages.alice), try await harness.token(for: Messages.bob)
            )
            #expect(try await messages.send(client, alice, to: Messages.bob, media: Messages.photo).status == .created)
            #expect(
                try await messages.send(client, alice, to: Messages.bob, media: Messages.freshPhoto).status == .created)
            let conversation = try #require(try await messages.folder(client, bob, .inbox).first)
            let page = try await client.get("/v1/messages/conversations/\(conversation.id)/messages", token: bob)
                .json(Page<DirectMessage>.self)
            let views = Dictionary(uniqueKeysWithValues: page.items.compactMap { $0.media.map { ($0.id, $0) } })
            let fresh = try #require(views[Messages.freshPhoto])
            #expect(fresh.kind == .photo && fresh.status == .ready && fresh.placeholder != nil)
            #expect(fresh.displayURL?.hasPrefix("/v1/media/views/\(Messages.freshPhoto)/display?exp=") == true)
            // Without a description (media always gives one; this lookup does not) the message
            // names its photo and carries no view: nothing a phone would draw as broken.
            let undescribed = try #require(page.items.first { $0.mediaId == Messages.photo })
            #expect(undescribed.media == nil)
        }
    }
}
