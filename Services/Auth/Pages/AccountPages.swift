import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import ServiceHTTP

/// The small web pages the mailed links open when no app opens them first: each shows a
/// button (or, for a reset, the new password's fields) that posts the link's token back, so a
/// mail scanner that fetches every link changes nothing. Mustache escapes what they show; they
/// run no script and send no referrer.
struct AccountPages: Sendable {
    let appName: String
    private let library: MustacheLibrary

    init(appName: String) throws {
        self.appName = appName
        var library = MustacheLibrary()
        try library.register(Self.page, named: "page")
        self.library = library
    }

    /// A page that says how something went.
    func message(_ heading: String, _ text: String, status: HTTPResponse.Status = .ok) -> Response {
        render(["heading": heading, "text": text], status: status)
    }

    /// A page whose button posts `token` to `action`, with the new password's fields when
    /// `password` is set.
    func form(
        _ heading: String, _ text: String, action: String, token: String, button: String, password: Bool = false
    )
        -> Response
    {
        render(
            [
                "heading": heading, "text": text, "action": action, "token": token, "button": button,
                "password": password,
            ],
            status: .ok)
    }

    /// The page a mailed link opens (`GET …?token=`): the form that posts the token back to
    /// `action`, or a page saying the link is broken.
    func linkPage(
        _ request: Request, heading: String, text: String, action: String, button: String, password: Bool = false
    ) -> Response {
        guard let raw = request.uri.queryParameters["token"].map(String.init),
            let token = try? EmailCodes.readLinkToken(raw)
        else {
            return message("This link is broken", "Open the link from the mail again, whole.", status: .badRequest)
        }
        return form(heading, text, action: action, token: token, button: button, password: password)
    }

    /// The page for a link that no longer works.
    func spentLink() -> Response {
        message(
            "This link no longer works",
            "It was used already, has expired, or a newer mail replaced it. Ask \(appName) for a new one.",
            status: .badRequest)
    }

    /// A link route's `POST`: the token from its page's form (answered with a page) or from an
    /// app (answered with JSON); `apply` uses it, nil when no live link had it.
    func answerLink(
        _ request: Request, _ context: ServiceRequestContext, done heading: String,
        apply: (String) async throws -> VerifiedEmail?
    ) async throws -> Response {
        let form = request.isForm
        let body =
            form
            ? try await request.decodeForm(as: EmailLinkToken.self, incomplete: Self.incompleteForm)
            : try await request.decodeJSON(as: EmailLinkToken.self, context: context)
        do {
            guard let changed = try await apply(try EmailCodes.readLinkToken(body.token)) else {
                throw EmailCodes.invalidLink
            }
            guard form else { return try Response.json(changed) }
            return message(heading, "The account's address is \(changed.email).")
        } catch let error as ServiceError where form {
            return failure(error)
        }
    }

    /// A page for an error a link's form ran into.
    func failure(_ error: ServiceError) -> Response {
        error.code == .invalidCode ? spentLink() : message("That did not work", error.message, status: .badRequest)
    }

    static let incompleteForm = "The form is incomplete: open the mailed link again."

    private func render(_ values: [String: Any], status: HTTPResponse.Status) -> Response {
        var values = values
        values["appName"] = appName
        let html = library.render(values, withTemplate: "page") ?? ""
        return Response(
            status: status, headers: .htmlPage(styleSource: "'unsafe-inline'"),
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    private static let page = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>{{heading}} · {{appName}}</title>
        <style>
        body{margin:0;padding:24px;background:#f4f4f5;font-family:-apple-system,Segoe UI,Roboto,sans-serif;color:#18181b}
        main{max-width:420px;margin:40px auto;background:#fff;border-radius:12px;padding:28px}
        input{display:block;width:100%;box-sizing:border-box;margin:6px 0 14px;padding:10px;border:1px solid #d4d4d8;border-radius:8px;font-size:16px}
        button{background:#18181b;color:#fff;border:0;border-radius:8px;padding:10px 16px;font-size:16px}
        </style></head>
        <body><main>
        <p style="font-weight:600">{{appName}}</p>
        <h1 style="font-size:22px">{{heading}}</h1>
        <p>{{text}}</p>
        {{#action}}
        <form method="post" action="{{action}}">
        <input type="hidden" name="token" value="{{token}}">
        {{#password}}
        <label for="password">New password (at least 8 characters)</label>
        <input id="password" name="password" type="password" autocomplete="new-password" minlength="8" maxlength="1024" required>
        {{/password}}
        <button type="submit">{{button}}</button>
        </form>
        {{/action}}
        </main></body></html>
        """
}
