import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Passwordless sign-in (`auth.email.signInCodes`, off by default): `POST /v1/auth/email/code`
/// answers the same 202 for every address and mails a code when the address has an account;
/// `POST /v1/auth/email/code/verify` trades the code for a token pair. A wrong code and an
/// unknown address are the same 401 `INVALID_CODE`; a code allows a few tries.
struct EmailSignInController: Sendable {
    let email: EmailStore
    let sessions: SessionStore
    let issuer: TokenIssuer
    let policy: RatePolicy
    let clock: any WallClock
    let entropy: any Entropy

    static let accepted = MailRequestAccepted(
        message: "If an account uses this address, a sign-in code is on its way. It works for a few minutes.")

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.post("/v1/auth/email/code", use: send)
        routes.open.post("/v1/auth/email/code/verify", use: verify)
    }

    @Sendable func send(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PasswordResetController.mailByAddress(
            .signIn, request, context, email: email, policy: policy, accepted: Self.accepted)
    }

    @Sendable func verify(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: EmailSignInRequest.self, context: context)
        let address = try Credentials.normalizedEmail(body.email)
        let code = try EmailCodes.readCode(body.code)
        try Credentials.validate(body.device)
        guard let user = try await email.signIn(email: address, code: code) else {
            throw EmailCodes.invalidCode
        }
        return try Response.json(
            await AuthController.openSession(
                for: user.id, device: body.device, request: request, context: context, sessions: sessions,
                issuer: issuer, entropy: entropy, now: clock.now()))
    }
}
