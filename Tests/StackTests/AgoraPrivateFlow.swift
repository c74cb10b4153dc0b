import Foundation
import ServiceHTTP
import TestSupport
import Testing

/// Agora's private side over the real executables, on the notifications stack (which trusts
/// `app`'s test App Attest root and requires a recent assertion to post): Cleo registers her
/// device's key and asserts, then posts; a replayed assertion, an attestation for another app
/// and a forged one are refused with their codes. Cleo writes to Dara, who does not follow her:
/// a message request, told once; Dara accepts and answers; Cleo's next message reaches Dara's
/// live stream and her phone (the fake APNs); a word Dara muted keeps a message out of her
/// view; after Dara blocks Cleo nothing crosses either way.
struct AgoraPrivateFlow {
    let flow: SliceFlow
    let fake: FakePushProviders
    let app: AppAttestFixture

    /// Registers `device`'s key for `person`'s session and asserts once: the session may post.
    static func attest(_ person: Person, with device: AppAttestFixture, flow: SliceFlow) async throws {
        let challenge = try await challenge(person, flow: flow)
        let registered = try await flow.call(
            .POST, "/v1/me/attestation/keys", as: person,
            json: AttestationKeyRegistration(
                keyId: device.keyID, attestation: try device.attestation(challenge: challenge), challenge: challenge))
        #expect(registered.status == 201, "\(registered.text)")
        let asserted = try await assert(person, with: device, counter: 1, flow: flow)
        #expect(asserted.status == 200, "\(asserted.text)")
    }

    static func challenge(_ person: Person, flow: SliceFlow) async throws -> String {
        try await flow.call(.POST, "/v1/me/attestation/challenges", as: person).decode(AttestationChallenge.self)
            .challenge
    }

    static func assert(
        _ person: Person, with device: AppAttestFixture, counter: UInt32, appID: String? = nil, flow: SliceFlow
    ) async throws -> FullResponse {
        let challenge = try await challenge(person, flow: flow)
        return try await flow.call(
            .POST, "/v1/me/attestation/assertions", as: person,
            json: AttestationAssertion(
                keyId: device.keyID,
                assertion: try device.assertion(challenge: challenge, counter: counter, appID: appID),
                challenge: challenge))
    }

    func run() async throws {
        let cleo = try await flow.signUp("Cleo")
        let dara = try await flow.signUp("Dara")
        try await attestation(cleo)
        try await messages(from: cleo, to: dara)
    }

    func attestation(_ cleo: Person) async throws {
        let phone = app.anotherDevice()
        let early = try await flow.call(.POST, "/v1/posts", as: cleo, json: CreatePostRequest(text: "First!"))
        #expect(early.status == 403 && early.errorCode == .attestationRequired, "\(early.text)")

        // Refused with stable codes: an attestation for another app, and one whose leaf another
        // authority signed; nothing is registered by either.
        for (attestation, code) in [
            (
                { (challenge: String) in try phone.attestation(challenge: challenge, appID: "OTHERTEAM1.com.example.x")
                },
                ErrorCode.attestationAppMismatch
            ),
            (
                { (challenge: String) in try phone.attestation(challenge: challenge, forgedBy: true) },
                .attestationInvalid
            ),
        ] {
            let challenge = try await Self.challenge(cleo, flow: flow)
            let refused = try await flow.call(
                .POST, "/v1/me/attestation/keys", as: cleo,
                json: AttestationKeyRegistration(
                    keyId: phone.keyID, attestation: try attestation(challenge), challenge: challenge))
            #expect(refused.status == 422 && refused.errorCode == code, "\(refused.text)")
        }

        // Registered and asserted, Cleo posts.
        try await Self.attest(cleo, with: phone, flow: flow)
        let posted = try await flow.call(.POST, "/v1/posts", as: cleo, json: CreatePostRequest(text: "First!"))
        #expect(posted.status == 201, "\(posted.text)")
        // An old counter again is a replay.
        let replayed = try await Self.assert(cleo, with: phone, counter: 1, flow: flow)
        #expect(replayed.status == 409 && replayed.errorCode == .assertionReplayed, "\(replayed.text)")
        let otherApp = try await Self.assert(
            cleo, with: phone, counter: 2, appID: "OTHERTEAM1.com.example.x", flow: flow)
        #expect(otherApp.errorCode == .attestationAppMismatch, "\(otherApp.text)")
        #expect(try await Self.assert(cleo, with: phone, counter: 3, flow: flow).status == 200)
    }

    func messages(from cleo: Person, to dara: Person) async throws {
        let notifications = NotificationFlow(flow: flow, fake: fake)
        let token = String(repeating: "da7a", count: 16)
        let device = try await flow.call(
            .POST, "/v1/devices", as: dara,
            json: DeviceRegistration(
                provider: .apns, token: token, bundleId: "org.pinhole.agora", environment: .production))
        #expect(device.status == 201, "\(device.text)")
        let stream = try await notifications.stream(dara)
        #expect(await stream.waitFor(1))
        func pushes() -> [FakePushProviders.Push] { fake.pushes.filter { $0.token == token } }

        // Dara does not follow Cleo: a request, told once.
        let hello = try await flow.call(
            .POST, "/v1/messages", as: cleo, json: MessageDraft(recipientId: dara.id, text: "Loved your photo"))
        #expect(hello.status == 201, "\(hello.text)")
        let conversation = try hello.decode(DirectMessage.self).conversationId
        _ = try await flow.call(.POST, "/v1/messages", as: cleo, json: MessageDraft(recipientId: dara.id, text: "Hi?"))
        let requests = try await flow.call(.GET, "/v1/messages/conversations?folder=requests", as: dara)
            .decode(Page<Conversation>.self).items
        #expect(requests.map(\.id) == [conversation] && requests.first?.unreadCount == 2)
        #expect(await stream.waitFor(2, timeout: .seconds(30)))
        #expect(try notifications.message(stream.events[1]).notification?.type == .messageRequest)

        // Dara accepts and answers; Cleo's next message reaches her stream and her phone.
        let accepted = try await flow.call(.POST, "/v1/messages/conversations/\(conversation)/accept", as: dara)
        #expect(try accepted.decode(Conversation.self).folder == .inbox)
        let answer = try await flow.call(
            .POST, "/v1/messages/conversations/\(conversation)/messages", as: dara, json: MessageDraft(text: "Thanks!"))
        #expect(answer.status == 201, "\(answer.text)")
        let live = try await flow.call(
            .POST, "/v1/messages/conversations/\(conversation)/messages", as: cleo,
            json: MessageDraft(text: "Coffee on Friday?"))
        let liveID = try live.decode(DirectMessage.self).id
        // Her answer read the request's notification (a `read` event); then Cleo's message arrives.
        func arrived() -> NotificationStreamMessage? {
            stream.events.compactMap { try? notifications.message($0) }.first { $0.message?.id == liveID }
        }
        #expect(await flow.eventually { arrived() != nil }, "Cleo's message never reached Dara's stream")
        let delivered = arrived()?.notification
        #expect(delivered?.type == .message && delivered?.body == "Coffee on Friday?")
        #expect(arrived()?.message?.text == "Coffee on Friday?")
        #expect(
            stream.events.compactMap { try? notifications.message($0) }.contains {
                $0.type == .read && $0.ids?.contains(stream.events[1].id ?? "") == true
            })
        #expect(
            await flow.eventually {
                pushes().contains { NotificationFlow.notificationID(of: $0) == delivered?.id }
            }, "Dara's phone never heard of Cleo's message")

        // A word Dara muted: Cleo's message stays hers alone (once moderation's list reached alerts).
        let muted = try await flow.call(.POST, "/v1/mutes/words", as: dara, json: KeywordMuteCreate(phrase: "crypto"))
        #expect(muted.status == 201, "\(muted.text)")
        func seen(by person: Person) async throws -> [String] {
            try await flow.call(.GET, "/v1/messages/conversations/\(conversation)/messages?limit=100", as: person)
                .decode(Page<DirectMessage>.self).items.map(\.id)
        }
        var hidden: String?
        #expect(
            try await flow.eventually {
                let sent = try await flow.call(
                    .POST, "/v1/messages/conversations/\(conversation)/messages", as: cleo,
                    json: MessageDraft(text: "Into crypto?"))
                let id = try sent.decode(DirectMessage.self).id
                if try await seen(by: dara).contains(id) { return false }
                hidden = id
                return true
            }, "the muted word never reached alerts")
        #expect(try await seen(by: cleo).first == hidden)

        // Dara blocks Cleo: once alerts knows, nothing crosses, either way.
        let blocked = try await flow.call(.POST, "/v1/blocks", as: dara, json: BlockCreate(userId: cleo.id))
        #expect(blocked.status == 201, "\(blocked.text)")
        #expect(
            try await flow.eventually {
                try await flow.call(
                    .POST, "/v1/messages", as: dara, json: MessageDraft(recipientId: cleo.id, text: "Bye.")
                ).errorCode == .cannotMessage
            }, "the block never reached alerts")
        let (messagesSeen, pushesSeen) = (stream.events.count, pushes().count)
        let refused = try await flow.call(
            .POST, "/v1/messages/conversations/\(conversation)/messages", as: cleo, json: MessageDraft(text: "Why?"))
        #expect(refused.status == 403 && refused.errorCode == .cannotMessage, "\(refused.text)")
        let fresh = try await flow.call(
            .POST, "/v1/messages", as: cleo, json: MessageDraft(recipientId: dara.id, text: "Why?"))
        #expect(fresh.errorCode == .cannotMessage)
        try await Task.sleep(for: .seconds(1))
        #expect(stream.events.count == messagesSeen && pushes().count == pushesSeen)
        await stream.stop()
    }
}
