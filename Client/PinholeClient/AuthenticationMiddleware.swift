import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Signs each request with the stored access token and, when the server answers 401, refreshes
/// the pair once (see ``TokenRefresher``) and sends the request again with the new token.
struct AuthenticationMiddleware: ClientMiddleware {
    let store: any TokenStore
    let refresher: TokenRefresher

    /// Operations the API document marks `security: []`: they never carry the bearer token
    /// (the client's tests keep this list equal to the document's).
    static let publicOperations: Set<String> = [
        "register", "login", "refresh", "appealBan", "checkUsername", "appleSignIn", "guestToken", "pinLogin",
        "verifySession",
        "revenueCatWebhook", "presignedPut", "presignedGet", "mediaViewVariant", "putEvidence", "jwks", "stackHealth",
        "gatewayLive",
        "gatewayReady", "apiDescription", "metrics", "appleAppSiteAssociation", "androidAssetLinks",
        "forgotPassword", "passwordResetPage", "resetPassword", "emailVerificationPage", "verifyEmailLink",
        "emailChangePage", "confirmEmailChangeLink", "emailUndoPage", "undoEmailChange", "requestSignInCode",
        "signInWithCode",
    ]

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        // A caller that signs a request itself (a guest token, another account) keeps its header.
        guard !Self.publicOperations.contains(operationID), request.headerFields[.authorization] == nil,
            let sent = await store.load()?.accessToken
        else { return try await next(request, body, baseURL) }
        let (response, responseBody) = try await next(signed(request, with: sent), body, baseURL)
        guard response.status == .unauthorized, body.map({ $0.iterationBehavior == .multiple }) ?? true,
            let renewed = try await refresher.refreshed(after: sent)
        else { return (response, responseBody) }
        await responseBody?.discard()
        return try await next(signed(request, with: renewed.accessToken), body, baseURL)
    }

    private func signed(_ request: HTTPRequest, with token: String) -> HTTPRequest {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return request
    }
}

extension HTTPBody {
    /// Reads and drops an answer's body, so its connection can serve the next request.
    func discard() async {
        _ = try? await Data(collecting: self, upTo: 1 << 20)
    }
}
