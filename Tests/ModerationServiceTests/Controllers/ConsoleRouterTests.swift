import Foundation
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import TestSupport
import Testing

@testable import ModerationService

private typealias W = ModerationWorld

/// The moderation console in process: its cookie session and CSRF rules, and that its forms
/// do what the API does.
@Suite struct ConsoleRouterTests {
    /// A browser's cookie jar, as far as the console needs one.
    struct Visitor {
        let client: any TestClientProtocol
        var cookies: [String: String] = [:]

        mutating func send(
            _ method: HTTPRequest.Method, _ path: String, form: [String: String]? = nil
        ) async throws -> TestResponse {
            var headers: HTTPFields = [:]
            if !cookies.isEmpty {
                headers[.cookie] = cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                    .joined(separator: "; ")
            }
            var body: ByteBuffer?
            if let form {
                headers[.contentType] = "application/x-www-form-urlencoded"
                body = ByteBuffer(string: FormPost.encode(form))
            }
            let response = try await client.execute(uri: path, method: method, headers: headers, body: body)
            for value in response.headers[values: .setCookie] {
                let pair = value.split(separator: ";")[0].split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2 { cookies[pair[0]] = pair[1].isEmpty ? nil : pair[1] }
            }
            return response
        }

        /// The value of the first `name="csrf"` field on the page.
        static func csrf(in page: TestResponse) -> String? {
            let html = String(buffer: page.body)
            guard let range = html.range(of: #"name="csrf" value=""#) else { return nil }
            return String(html[range.upperBound...].prefix { $0 != "\"" })
        }

        mutating func signIn(_ user: String, password: String? = nil) async throws -> TestResponse {
            let page = try await send(.get, "/console/sign-in")
            return try await send(
                .post, "/console/sign-in",
                form: [
                    "email": "\(user)@example.com", "password": password ?? "pw-\(user)",
                    "csrf": Self.csrf(in: page) ?? "",
                ])
        }
    }

    @Test func aModeratorSignsInWithTheirOwnAccountAndTheCookieIsGuarded() async throws {
        try await withModeration { world in
            var visitor = Visitor(client: world.client)
            #expect(try await visitor.send(.get, "/console/queue").headers[.location] == "/console/sign-in")
            let page = try await visitor.send(.get, "/console/sign-in")
            #expect(page.status == .ok && page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            let csrf = try #require(Visitor.csrf(in: page))
            // Without the sign-in cookie's pair, the form is refused.
            var stranger = Visitor(client: world.client)
            let forged = try await stranger.send(
                .post, "/console/sign-in",
                form: ["email": "\(W.moderators[0])@example.com", "password": "pw-\(W.moderators[0])", "csrf": csrf])
            #expect(forged.status == .forbidden && stranger.cookies[ConsoleGate.sessionCookie] == nil)
            // Nor does an empty field without the cookie (a cross-site form carries no cookie).
            let empty = try await stranger.send(
                .post, "/console/sign-in",
                form: ["email": "\(W.moderators[0])@example.com", "password": "pw-\(W.moderators[0])", "csrf": ""])
            #expect(empty.status == .forbidden && stranger.cookies[ConsoleGate.sessionCookie] == nil)
            // A wrong password, then someone who does not moderate, are refused.
            let wrong = try await visitor.signIn(W.moderators[0], password: "nope")
            #expect(
                wrong.status == .unauthorized && String(buffer: wrong.body).contains("The email or password is wrong."))
            let member = try await visitor.signIn(W.people[1])
            #expect(member.status == .forbidden && visitor.cookies[ConsoleGate.sessionCookie] == nil)
            #expect(world.accounts.ended.withLock { $0 } == ["s-\(W.people[1])"])

            let signedIn = try await visitor.signIn(W.moderators[0])
            #expect(signedIn.status == .seeOther && signedIn.headers[.location] == "/console/queue")
            let cookie = try #require(
                signedIn.headers[values: .setCookie].first { $0.hasPrefix("\(ConsoleGate.sessionCookie)=") })
            for attribute in ["Path=/console", "Secure", "HttpOnly", "SameSite=Strict", "Max-Age=28800"] {
                #expect(cookie.contains(attribute), "\(attribute)")
            }
            #expect(try await visitor.send(.get, "/console/queue").status == .ok)
            // The store keeps a hash of the cookie, never the cookie.
            let token = try #require(visitor.cookies[ConsoleGate.sessionCookie])
            let stored = try await world.harness.database().read { db in
                try String.fetchAll(db, sql: "SELECT token_hash FROM console_session")
            }
            #expect(stored == [ConsoleGate.hash(token)])

            // A revoked role ends console access at once its session state says so.
            world.sessions.set(W.moderators[0], roles: [])
            world.forgetSessions()
            #expect(try await visitor.send(.get, "/console/queue").headers[.location] == "/console/sign-in")
            world.sessions.set(W.moderators[0], roles: [RoleGrant(role: .moderator)])
            world.forgetSessions()
            let queue = try await visitor.send(.get, "/console/queue")
            #expect(queue.status == .ok)

            // Signing out needs the page's token, ends the auth session and the cookie.
            #expect(try await visitor.send(.post, "/console/sign-out", form: ["csrf": "guess"]).status == .forbidden)
            let out = try await visitor.send(.post, "/console/sign-out", form: ["csrf": Visitor.csrf(in: queue) ?? ""])
            #expect(out.headers[.location] == "/console/sign-in")
            #expect(world.accounts.ended.withLock { $0 }.last == "s-\(W.moderators[0])")
            var replay = Visitor(client: world.client, cookies: [ConsoleGate.sessionCookie: token])
            #expect(try await replay.send(.get, "/console/queue").headers[.location] == "/console/sign-in")
        }
    }

    @Test func theConsoleShowsTheQueueAndItsFormsActDecideAndLog() async throws {
        try await withModeration { world in
            for reporter in W.people[1...3] {
                world.harness.clock.advance(by: 1)
                #expect(try await world.report(.reply, W.reply, by: reporter, reason: .harassment).status == .created)
            }
            // Moderation's copy of profiles names the people the pages show.
            try world.harness.mirror(people: [
                UserSummary(id: W.moderators[0], displayName: "Mona Mod"),
                UserSummary(id: W.moderators[1], displayName: "Milo Mod"),
                UserSummary(id: W.author, displayName: "Ari Author"),
            ])
            var first = Visitor(client: world.client)
            _ = try await first.signIn(W.moderators[0])
            let queue = try await first.send(.get, "/console/queue")
            let html = String(buffer: queue.body)
            #expect(html.contains("/console/objects/reply/\(W.reply)") && html.contains("3 open reports"))
            #expect(html.contains("<span class=\"badge\">hidden</span>"))
            let object = try await first.send(.get, "/console/objects/reply/\(W.reply)")
            let page = String(buffer: object.body)
            #expect(page.contains("reply \(W.reply)") && page.contains("harassment"))
            #expect(page.contains("<option value=\"remove\">"))
            let csrf = try #require(Visitor.csrf(in: object))

            // Without the token nothing happens; with it, the author is suspended.
            let path = "/console/objects/reply/\(W.reply)/actions"
            let forged = try await first.send(
                .post, path, form: ["csrf": "x", "action": "suspend", "reason": "Threats", "durationHours": "48"])
            let none = try world.harness.outboxEvents(UserSuspended.self)
            #expect(forged.status == .forbidden && none.isEmpty)
            let refused = try await first.send(
                .post, path, form: ["csrf": csrf, "action": "warn", "reason": " ", "durationHours": "12"])
            #expect(refused.status == .badRequest && String(buffer: refused.body).contains("`reason` must be 1 to 500"))
            // The hours left in the form count only for a suspension.
            let warned = try await first.send(
                .post, path, form: ["csrf": csrf, "action": "warn", "reason": "Mind your words", "durationHours": "12"])
            #expect(warned.status == .seeOther)
            #expect(try world.harness.outboxEvents(UserWarned.self).map(\.reason) == ["Mind your words"])
            let done = try await first.send(
                .post, path, form: ["csrf": csrf, "action": "suspend", "reason": "Threats", "durationHours": "48"])
            #expect(
                done.status == .seeOther && done.headers[.location] == "/console/objects/reply/\(W.reply)?done=suspend")
            let suspended = try #require(try world.harness.outboxEvents(UserSuspended.self).first)
            #expect(suspended.userId == W.author && suspended.reason == "Threats")

            // The author appeals; the moderator who acted cannot decide it, another can.
            let appeal = try await world.client.post(
                "/v1/moderation/actions/\(suspended.actionId)/appeal", AppealCreate(statement: "It was a <b>quote</b>"),
                token: try await world.token(W.author))
            let appealID = try appeal.json(Appeal.self).id
            let mine = String(buffer: try await first.send(.get, "/console/appeals").body)
            #expect(mine.contains("It was a &lt;b&gt;quote&lt;/b&gt;") && mine.contains("another moderator decides"))
            // People by name, not by id: whose action, by whom; the object's history too.
            #expect(mine.contains("<strong>suspend</strong> of Ari Author by Mona Mod on"), "\(mine)")
            let history = String(buffer: try await first.send(.get, "/console/objects/reply/\(W.reply)").body)
            #expect(history.contains("suspend by Mona Mod: Threats"), "\(history)")
            var second = Visitor(client: world.client)
            _ = try await second.signIn(W.moderators[1])
            let appeals = try await second.send(.get, "/console/appeals")
            let decided = try await second.send(
                .post, "/console/appeals/\(appealID)/decision",
                form: ["csrf": Visitor.csrf(in: appeals) ?? "", "outcome": "reverse", "reason": "A quote"])
            #expect(decided.headers[.location] == "/console/appeals?done=reverse")
            #expect(try world.harness.outboxEvents(UserReinstated.self).map(\.actionId) == [suspended.actionId])
            let again = try await second.send(
                .post, "/console/appeals/\(appealID)/decision",
                form: ["csrf": Visitor.csrf(in: appeals) ?? "", "outcome": "uphold", "reason": "x"])
            #expect(again.status == .conflict)

            let audit = String(buffer: try await second.send(.get, "/console/audit?userId=\(W.author)").body)
            for event in ["content.hidden", "action.suspend", "appeal.made", "appeal.reversed"] {
                #expect(audit.contains("<td>\(event)</td>"), "\(event)")
            }
        }
    }

    @Test func theConsoleShowsAReportedObjectsPicturesAndNoOtherMedia() async throws {
        try await withModeration { world in
            #expect(try await world.report(.snap, W.snap, by: W.people[1]).status == .created)
            var visitor = Visitor(client: world.client)
            let picture = "/console/objects/snap/\(W.snap)/media/\(W.snapPhoto)"
            #expect(try await visitor.send(.get, picture).headers[.location] == "/console/sign-in")
            _ = try await visitor.signIn(W.moderators[0])
            let page = String(buffer: try await visitor.send(.get, "/console/objects/snap/\(W.snap)").body)
            #expect(page.contains("<img src=\"\(picture)\""))
            let shown = try await visitor.send(.get, picture)
            #expect(shown.status == .ok && shown.headers[.contentType] == "image/jpeg" && shown.body == W.thumbnail)
            #expect(shown.headers[.cacheControl] == "no-store")
            // Only media the object shows, and only of objects moderation has a case on.
            let elsewhere = "5a000000-0000-4000-8000-000000000002"
            #expect(
                try await visitor.send(.get, "/console/objects/snap/\(W.snap)/media/\(elsewhere)").status == .notFound)
            #expect(
                try await visitor.send(.get, "/console/objects/post/\(W.post)/media/\(W.snapPhoto)").status == .notFound
            )
            // Someone who does not moderate sees nothing.
            var member = Visitor(client: world.client)
            _ = try await member.signIn(W.people[2])
            #expect(try await member.send(.get, picture).status != .ok)
        }
    }
}
