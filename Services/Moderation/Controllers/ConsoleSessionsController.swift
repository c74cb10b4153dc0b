import Foundation
import HTTPTypes
import Hummingbird
import ServiceHTTP

/// The console's door: `GET /console` (to the queue, or to sign in), the sign-in page and
/// form (the moderator's own email and password, checked by auth), signing out (which ends the
/// auth session too), and the style sheet.
struct ConsoleSessionsController: Sendable {
    let gate: ConsoleGate
    let accounts: ConsoleAccounts
    let pages: ConsolePages

    struct SignInForm: Decodable {
        var email: String
        var password: String
        var csrf: String
    }

    struct CSRFForm: Decodable {
        var csrf: String
    }

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("/console", use: home)
        routes.open.get("/console/console.css", use: stylesheet)
        routes.open.get("/console/sign-in", use: signInPage)
        routes.open.post("/console/sign-in", use: signIn)
        routes.open.post("/console/sign-out", use: signOut)
    }

    @Sendable func home(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        ConsolePages.redirect(to: try await gate.visit(request) == nil ? "/console/sign-in" : "/console/queue")
    }

    @Sendable func stylesheet(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(string: ConsolePages.stylesheet)))
    }

    @Sendable func signInPage(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        if try await gate.visit(request) != nil { return ConsolePages.redirect(to: "/console/queue") }
        return signInForm(email: "", error: nil, status: .ok)
    }

    @Sendable func signIn(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let form = try await request.consoleForm(SignInForm.self)
        try ConsoleGate.check(
            form.csrf, against: ConsoleGate.cookie(ConsoleGate.signInCookie, in: request.headers) ?? "")
        switch try await accounts.signIn(form.email, form.password) {
        case .refused(let status, let error):
            return signInForm(email: form.email, error: error.message, status: .init(code: status))
        case .signedIn(let accessToken, let sessionID):
            let user = try await gate.verifier.verify(accessToken)
            guard user.has(.moderator) else {
                try await accounts.end(sessionID, user.userID)
                return signInForm(
                    email: form.email, error: "This account does not hold the moderator role.", status: .forbidden)
            }
            let now = gate.clock.now()
            let token = gate.token()
            try await gate.store.open(
                ConsoleSessionRecord(
                    tokenHash: ConsoleGate.hash(token), userId: user.userID, authSessionId: sessionID,
                    csrfToken: gate.token(), createdAt: now, expiresAt: now.addingTimeInterval(ConsoleGate.lifetime)))
            context.logger.notice("console sign-in", metadata: ["user_id": "\(user.userID)"])
            return ConsolePages.redirect(
                to: "/console/queue",
                cookies: [
                    ConsoleGate.setCookie(ConsoleGate.sessionCookie, token, maxAge: Int(ConsoleGate.lifetime)),
                    ConsoleGate.setCookie(ConsoleGate.signInCookie, "", maxAge: 0),
                ])
        }
    }

    @Sendable func signOut(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let clear = ConsoleGate.setCookie(ConsoleGate.sessionCookie, "", maxAge: 0)
        guard let visit = try await gate.visit(request) else {
            return ConsolePages.redirect(to: "/console/sign-in", cookies: [clear])
        }
        try ConsoleGate.check(try await request.consoleForm(CSRFForm.self).csrf, against: visit.session.csrfToken)
        try await gate.store.closeConsoleSession(tokenHash: visit.tokenHash)
        try await accounts.end(visit.session.authSessionId, visit.session.userId)
        return ConsolePages.redirect(to: "/console/sign-in", cookies: [clear])
    }

    /// The sign-in page with a fresh CSRF pair (its cookie, its field).
    private func signInForm(email: String, error: String?, status: HTTPResponse.Status) -> Response {
        let csrf = gate.token()
        var values: [String: Any] = ["csrf": csrf, "email": email]
        if let error { values["error"] = error }
        var response = pages.page("sign-in", values, status: status)
        response.headers.append(
            HTTPField(name: .setCookie, value: ConsoleGate.setCookie(ConsoleGate.signInCookie, csrf, maxAge: 3600)))
        return response
    }
}
