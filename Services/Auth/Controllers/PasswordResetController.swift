import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// "Forgot password": `POST /v1/auth/password/forgot` answers the same 202 for every address
/// (the `mail.request` job decides whether a link goes), the link opens
/// `GET /v1/auth/password/reset`, and its form (or an app, with JSON) posts the token and the
/// new password to `POST /v1/auth/password/reset`. A reset ends every session.
struct PasswordResetController: Sendable {
    let email: EmailStore
    let hasher: PasswordHasher
    let pages: AccountPages
    let policy: RatePolicy

    static let accepted = MailRequestAccepted(
        message: "If an account uses this address, a link to set a new password is on its way. It works for an hour.")

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.post("/v1/auth/password/forgot", use: forgot)
        routes.open.get("/v1/auth/password/reset", use: page)
        routes.open.post("/v1/auth/password/reset", use: reset)
    }

    /// 202 whatever the address, or 429 past the address's hourly limit (for any address).
    @Sendable func forgot(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await Self.mailByAddress(.reset, request, context, email: email, policy: policy, accepted: Self.accepted)
    }

    /// A public route's mail asked for by address (a reset link, a sign-in code): `accepted`
    /// with 202 for every address alike, or 429 past the address's hourly limit.
    static func mailByAddress(
        _ purpose: EmailPurpose, _ request: Request, _ context: ServiceRequestContext, email: EmailStore,
        policy: RatePolicy, accepted: MailRequestAccepted
    ) async throws -> Response {
        let body = try await request.decodeJSON(as: EmailAddressRequest.self, context: context)
        let address = try Credentials.normalizedEmail(body.email)
        let decision = try await email.request(AccountMail.Request(purpose: purpose, address: address))
        guard decision.allowed else { throw AccountMail.tooMany(policy, decision) }
        return try Response.json(accepted, status: .accepted)
    }

    @Sendable func page(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        pages.linkPage(
            request, heading: "Set a new password", text: "Every device signed in to your account will be signed out.",
            action: "/v1/auth/password/reset", button: "Set password", password: true)
    }

    /// 204 once the password is set (JSON), or a page saying so (the link's form); a token that
    /// is wrong, used, expired or made for an older password is 401 `INVALID_CODE`.
    @Sendable func reset(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let form = request.isForm
        let body =
            form
            ? try await request.decodeForm(
                as: PasswordResetRequest.self, incomplete: AccountPages.incompleteForm)
            : try await request.decodeJSON(as: PasswordResetRequest.self, context: context)
        do {
            try Credentials.validateNewPassword(body.password)
            let token = try EmailCodes.readLinkToken(body.token)
            // Hashing costs ~50 ms of a core: only for a token that is live now.
            guard try await email.resetAvailable(linkToken: token),
                try await email.resetPassword(linkToken: token, newHash: try await hasher.hash(body.password))
            else { throw EmailCodes.invalidLink }
        } catch let error as ServiceError where form {
            return pages.failure(error)
        }
        context.logger.info("password reset")
        guard form else { return Response(status: .noContent) }
        return pages.message(
            "Password changed", "Sign in with your new password. Every device that was signed in has been signed out.")
    }
}
