import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Changing the account's address: `POST /v1/me/email` (with the password, or a fresh Sign in
/// with Apple token; an Apple account adds an address this way) mails the new address a code
/// and a link; the address changes once `POST /v1/me/email/confirm` takes the code or the link's
/// page posts to `POST /v1/auth/email/confirm`. The old address is then told, with a link
/// (`GET`/`POST /v1/auth/email/undo`) that puts it back for a week, ending every session.
struct EmailChangeController: Sendable {
    let users: UserStore
    let email: EmailStore
    let reauthentication: Reauthentication
    let pages: AccountPages
    let policy: RatePolicy

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.post("/v1/me/email", use: request)
        routes.authenticated.post("/v1/me/email/confirm", use: confirmCode)
        routes.open.get("/v1/auth/email/confirm", use: confirmPage)
        routes.open.post("/v1/auth/email/confirm", use: confirmLink)
        routes.open.get("/v1/auth/email/undo", use: undoPage)
        routes.open.post("/v1/auth/email/undo", use: undo)
    }

    /// 202 with where the code went; the account keeps its address until it is confirmed.
    @Sendable func request(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: EmailChangeRequest.self, context: context)
        let address = try Credentials.normalizedEmail(body.email)
        guard let record = try await users.user(id: user.userID) else { throw ServiceError.notFound("User") }
        try await reauthentication.confirm(
            record, password: body.password, appleIdentityToken: body.appleIdentityToken, nonce: body.nonce)
        let (decision, sent) = try await email.requestEmailChange(userID: user.userID, newEmail: address)
        guard let sent else {
            throw AccountMail.tooMany(policy, decision)
        }
        return try Response.json(sent, status: .accepted)
    }

    /// The code mailed to the new address: 200 with it, now the account's; 401 `INVALID_CODE`;
    /// 409 when another account took the address meanwhile.
    @Sendable func confirmCode(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: EmailCodeCheck.self, context: context)
        guard
            let changed = try await email.confirmEmailChange(userID: user.userID, code: EmailCodes.readCode(body.code))
        else { throw EmailCodes.invalidCode }
        return try Response.json(changed)
    }

    @Sendable func confirmPage(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        pages.linkPage(
            request, heading: "Confirm your new email address",
            text: "Your account will use this address from now on.", action: "/v1/auth/email/confirm",
            button: "Confirm")
    }

    @Sendable func confirmLink(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await pages.answerLink(request, context, done: "Email address changed") { token in
            try await email.confirmEmailChange(linkToken: token)
        }
    }

    @Sendable func undoPage(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        pages.linkPage(
            request, heading: "Take the change back",
            text: "Your account gets this address back, and every device signed in to it is signed out.",
            action: "/v1/auth/email/undo", button: "Put my address back")
    }

    @Sendable func undo(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await pages.answerLink(request, context, done: "Your address is back") { token in
            try await email.undoEmailChange(linkToken: token)
        }
    }
}
