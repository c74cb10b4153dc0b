import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Proving the account's address: `POST /v1/me/email/verification` mails a new code and
/// link (registration mails the first), `POST /v1/me/email/verification/check` takes the
/// code, and the link opens `GET /v1/auth/email/verify`, whose button (or an app, with JSON)
/// posts its token to `POST /v1/auth/email/verify`. `emailVerified` on `/v1/me` and in the
/// session state follows.
struct EmailVerificationController: Sendable {
    let email: EmailStore
    let pages: AccountPages
    let policy: RatePolicy

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.post("/v1/me/email/verification", use: send)
        routes.authenticated.post("/v1/me/email/verification/check", use: check)
        routes.open.get("/v1/auth/email/verify", use: page)
        routes.open.post("/v1/auth/email/verify", use: verifyLink)
    }

    /// 202 with where the code went; 409 when the address is already proven; 429 past the
    /// address's hourly limit.
    @Sendable func send(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let (decision, sent) = try await email.sendVerification(userID: user.userID)
        guard let sent else {
            throw AccountMail.tooMany(policy, decision)
        }
        return try Response.json(sent, status: .accepted)
    }

    /// The mailed code: 200 with the proven address, else 401 `INVALID_CODE` (each wrong code
    /// counts; a code allows a few).
    @Sendable func check(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: EmailCodeCheck.self, context: context)
        guard let verified = try await email.verify(userID: user.userID, code: EmailCodes.readCode(body.code))
        else { throw EmailCodes.invalidCode }
        return try Response.json(verified)
    }

    @Sendable func page(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        pages.linkPage(
            request, heading: "Confirm your email address", text: "One tap and this address is proven yours.",
            action: "/v1/auth/email/verify", button: "Confirm")
    }

    @Sendable func verifyLink(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await pages.answerLink(request, context, done: "Email address confirmed") { token in
            try await email.verify(linkToken: token)
        }
    }
}
