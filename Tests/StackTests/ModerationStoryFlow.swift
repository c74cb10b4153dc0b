import Foundation
import ServiceHTTP
import TestSupport
import Testing

/// Moderation over the real executables, with a real browser: three people report Sol's reply
/// and it is hidden; Mona, a moderator, signs in to the console in headless Chromium, opens
/// the report from the queue and suspends Sol; Sol can still read but every write is refused
/// with `ACCOUNT_SUSPENDED`, and is told why; Sol appeals; Milo, a second moderator, reverses
/// it in the console; Sol writes again, the reply is back, and the audit log, in the console
/// and through the API, shows every step. Screenshots of the console, at a laptop's width and a
/// phone's, land in `.build/screenshots/` for a person to look at. Then Milo bans Bea: her
/// session ends, sign-in tells her why, she appeals with her password, Mona reverses it, and
/// Bea signs in again.
struct ModerationStoryFlow {
    let flow: SliceFlow
    let app: AppAttestFixture
    var stack: Stack { flow.stack }

    static let screenshots = URL(fileURLWithPath: ".build/screenshots", isDirectory: true)

    func moderator(_ name: String) async throws -> Person {
        let person = try await flow.signUp(name)
        let grant = try await stack.pinhole(
            ["admin", "grant", "--email", "\(name.lowercased())@example.com", "--role", "moderator"])
        #expect(grant.status == 0, "\(grant.lines)")
        return person
    }

    func run() async throws {
        let (mona, milo) = (try await moderator("Mona"), try await moderator("Milo"))
        let sol = try await flow.signUp("Sol")
        let reporters = [try await flow.signUp("Rae"), try await flow.signUp("Ruth"), try await flow.signUp("Rex")]
        try await AgoraPrivateFlow.attest(sol, with: app.anotherDevice(), flow: flow)
        let post = try await flow.call(.POST, "/v1/posts", as: sol, json: CreatePostRequest(text: "Skate night?"))
        #expect(post.status == 201, "\(post.text)")
        let postID = try post.decode(Post.self).id
        let replied = try await flow.call(
            .POST, "/v1/posts", as: sol, json: CreatePostRequest(text: "Bring pads or else", replyTo: postID))
        let reply = try replied.decode(Post.self)

        // Three reports hide the reply from everyone but Sol.
        for reporter in reporters {
            let report = try await flow.call(
                .POST, "/v1/reports", as: reporter,
                json: ReportCreate(targetType: .reply, targetId: reply.id, reason: .harassment, details: "a threat"))
            #expect(report.status == 201, "\(report.text)")
        }
        #expect(
            await flow.eventually {
                (try? await flow.call(.GET, "/v1/posts/\(reply.id)", as: reporters[0]))?.status == 404
            },
            "three reports did not hide the reply")
        let mine = try await flow.call(.GET, "/v1/reports", as: reporters[0]).decode(Page<Report>.self)
        #expect(mine.items.map(\.status) == [.open])

        // Mona suspends Sol from the console, in Chromium.
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        let browser = try await HeadlessChromium.start(in: directory.url)
        do {
            try await inTheBrowser(browser, mona: mona, milo: milo, sol: sol, reply: reply, reporters: reporters)
        } catch {
            await browser.stop()
            throw error
        }
        await browser.stop()

        // The log through the API: the rule, the action, the appeal and its decision.
        let log = try await flow.call(.GET, "/v1/moderation/audit?userId=\(sol.id)", as: milo)
            .decode(Page<AuditEntry>.self)
        #expect(log.items.map(\.event) == ["appeal.reversed", "appeal.made", "action.suspend", "content.hidden"])
        #expect(log.items.map(\.actorId) == [milo.id, sol.id, mona.id, "system"])
        #expect(try await flow.call(.GET, "/v1/moderation/audit", as: sol).status == 403)

        try await banAndAppeal(mona: mona, milo: milo)
    }

    func banAndAppeal(mona: Person, milo: Person) async throws {
        let bea = try await flow.signUp("Bea")
        let banned = try await flow.call(
            .POST, "/v1/moderation/actions", as: milo,
            json: ModerationActionCreate(targetType: .user, targetId: bea.id, action: .ban, reason: "Spam accounts"))
        #expect(banned.status == 201, "\(banned.text)")
        let ban = try banned.decode(ModerationAction.self)
        #expect(
            await flow.eventually { (try? await flow.call(.GET, "/v1/me", as: bea))?.status == 401 },
            "Bea's session outlived the ban")
        let credentials = (email: "bea@example.com", password: "correct horse battery Bea")
        let refused = try await flow.call(
            .POST, "/v1/auth/login", json: LoginRequest(email: credentials.email, password: credentials.password))
        #expect(refused.errorCode == .accountBanned && refused.text.contains("Spam accounts"), "\(refused.text)")

        // Without a session, Bea appeals with her password; a wrong one reaches nobody.
        let wrong = try await flow.call(
            .POST, "/v1/auth/ban-appeal",
            json: BanAppealRequest(email: credentials.email, password: "guess", statement: "Not spam"))
        #expect(wrong.errorCode == .invalidCredentials)
        let appealed = try await flow.call(
            .POST, "/v1/auth/ban-appeal",
            json: BanAppealRequest(
                email: credentials.email, password: credentials.password, statement: "I run one account, mine."))
        #expect(appealed.status == 201, "\(appealed.text)")
        let appeal = try appealed.decode(Appeal.self)
        #expect(appeal.actionId == ban.id && appeal.userId == bea.id)
        let again = try await flow.call(
            .POST, "/v1/auth/ban-appeal",
            json: BanAppealRequest(email: credentials.email, password: credentials.password, statement: "Again"))
        #expect(again.status == 409)

        let decided = try await flow.call(
            .POST, "/v1/moderation/appeals/\(appeal.id)/decision", as: mona,
            json: AppealDecision(outcome: .reverse, reason: "One account after all"))
        #expect(decided.status == 200, "\(decided.text)")
        #expect(
            await flow.eventually {
                let login = try? await flow.call(
                    .POST, "/v1/auth/login",
                    json: LoginRequest(email: credentials.email, password: credentials.password))
                return login?.status == 200
            }, "Bea could not sign in after the reversal")
        let log = try await flow.call(.GET, "/v1/moderation/audit?userId=\(bea.id)", as: mona)
            .decode(Page<AuditEntry>.self)
        #expect(log.items.map(\.event) == ["appeal.reversed", "appeal.made", "action.ban"])
        #expect(log.items.map(\.actorId) == [mona.id, bea.id, milo.id])
    }

    func inTheBrowser(
        _ browser: HeadlessChromium, mona: Person, milo: Person, sol: Person, reply: Post, reporters: [Person]
    ) async throws {
        let page = try await browser.page()
        try await page.open(stack.url("/console"))
        #expect(try await page.location() == "/console/sign-in")
        try await signIn(page, as: mona)
        #expect(try await page.location() == "/console/queue")
        let queue = try await page.text()
        #expect(queue.contains("Reply by Sol") && queue.contains("3 open reports") && queue.contains("hidden"))
        try await page.screenshot(
            to: Self.screenshots.appendingPathComponent("console-queue-laptop.png"), width: 1280, height: 800,
            mobile: false)

        try await page.loading { _ = try await page.evaluate("document.querySelector('a.object').click(); true") }
        #expect(try await page.location() == "/console/objects/reply/\(reply.id)")
        let object = try await page.text()
        #expect(object.contains("Bring pads or else") && object.contains("harassment: a threat"))
        try await page.screenshot(
            to: Self.screenshots.appendingPathComponent("console-report-phone.png"), width: 390, height: 844,
            mobile: true)
        try await page.submit(
            ["#action": "suspend", "#durationHours": "48", "#reason": "Threatening replies"], clicking: "#take-action")
        #expect(try await page.text().contains("Done: suspend."))

        // Sol reads but cannot write, and is told why.
        #expect(
            await flow.eventually {
                let refused = try? await flow.call(
                    .POST, "/v1/posts", as: sol, json: CreatePostRequest(text: "Anyone around?"))
                return refused?.errorCode == .accountSuspended
            }, "Sol could still post")
        #expect(try await flow.call(.GET, "/v1/me", as: sol).status == 200)
        #expect(try await flow.call(.GET, "/v1/posts/\(reply.id)", as: sol).status == 200)
        #expect(
            await flow.eventually {
                let list = try? await flow.call(.GET, "/v1/notifications", as: sol).decode(Page<AppNotification>.self)
                return list?.items.contains { $0.type == .accountSuspended && $0.body.hasPrefix("Threatening replies") }
                    ?? false
            }, "Sol was not told of the suspension")
        let actions = try await flow.call(.GET, "/v1/moderation/my-actions", as: sol).decode(
            Page<ModerationAction>.self)
        let suspension = try #require(actions.items.first)
        #expect(suspension.action == .suspend && suspension.moderatorId == mona.id)
        let appeal = try await flow.call(
            .POST, "/v1/moderation/actions/\(suspension.id)/appeal", as: sol,
            json: AppealCreate(statement: "Pads are protective gear; it was advice."))
        #expect(appeal.status == 201, "\(appeal.text)")

        // Mona may not decide her own action's appeal; Milo reverses it.
        try await page.open(stack.url("/console/appeals"))
        #expect(try await page.text().contains("another moderator decides"))
        try await page.loading {
            _ = try await page.evaluate(
                "document.querySelector('form[action=\"/console/sign-out\"] button').click(); true")
        }
        #expect(try await page.location() == "/console/sign-in")
        try await signIn(page, as: milo)
        try await page.open(stack.url("/console/appeals"))
        #expect(try await page.text().contains("Pads are protective gear"))
        try await page.submit(
            ["select[name=outcome]": "reverse", "textarea[name=reason]": "Advice, not a threat"],
            clicking: "form[action^=\"/console/appeals/\"] button")
        #expect(try await page.text().contains("Appeal decided: reverse."))

        // Sol writes again, and the reply is back for everyone.
        #expect(
            await flow.eventually {
                let posted = try? await flow.call(
                    .POST, "/v1/posts", as: sol, json: CreatePostRequest(text: "Thanks, see you at the park"))
                return posted?.status == 201
            }, "Sol still could not post")
        #expect(
            await flow.eventually {
                (try? await flow.call(.GET, "/v1/posts/\(reply.id)", as: reporters[0]))?.status == 200
            },
            "the reply did not come back")
        let theirs = try await flow.call(.GET, "/v1/reports", as: reporters[0]).decode(Page<Report>.self)
        #expect(theirs.items.map(\.status) == [.dismissed])

        try await page.open(stack.url("/console/audit?userId=\(sol.id)"))
        let audit = try await page.text()
        for event in ["content.hidden", "action.suspend", "appeal.made", "appeal.reversed"] {
            #expect(audit.contains(event), "\(event) is not in the console's log")
        }
        try await page.screenshot(
            to: Self.screenshots.appendingPathComponent("console-audit-laptop.png"), width: 1280, height: 800,
            mobile: false)
        await page.close()
    }

    func signIn(_ page: BrowserPage, as moderator: Person) async throws {
        try await page.open(stack.url("/console/sign-in"))
        try await page.submit(
            [
                "#email": "\(moderator.name.lowercased())@example.com",
                "#password": "correct horse battery \(moderator.name)",
            ], clicking: "#sign-in")
    }
}
