import Foundation
import Mustache
import ServiceHTTP

/// The account mails' words: a subject, a plain-text body and an HTML body per kind, as
/// Mustache templates. The built-in ones below can be replaced one file at a time from
/// `mail.templatesDir`: `<kind>.subject.mustache`, `<kind>.text.mustache`,
/// `<kind>.html.mustache` (the HTML body goes inside `layout.html.mustache`, which shows it
/// with `{{{body}}}`). Every template sees `appName`, `email` and `supportEmail`, and the
/// kind's own values (`code`, `link`, `expiresIn`, `newEmail`, `when`, `signedOut`). HTML templates escape
/// what they show; subject and text templates do not.
struct MailTemplates: Sendable {
    enum Kind: String, CaseIterable, Sendable {
        /// A new account's address, or one asked to be verified again: a code and a link.
        case verifyEmail = "verify-email"
        /// Registration with an address that already has an account.
        case alreadyRegistered = "already-registered"
        /// "Forgot password": a link.
        case resetPassword = "reset-password"
        /// The password was changed (by a reset or in the app).
        case passwordChanged = "password-changed"
        /// A new address to prove before it replaces the old one: a code and a link.
        case confirmNewEmail = "confirm-new-email"
        /// To the old address: it was replaced, with a link that takes the change back.
        case emailChanged = "email-changed"
        /// Passwordless sign-in: a code.
        case signInCode = "sign-in-code"
    }

    /// One mail's rendered words.
    struct Rendered: Sendable, Equatable {
        var subject: String
        var text: String
        var html: String
    }

    private let library: MustacheLibrary

    /// The built-in templates, with any file of `overrides` in place of its built-in one.
    init(overrides directory: URL? = nil) throws {
        var sources: [String: String] = [:]
        for kind in Kind.allCases {
            let words = Self.builtIn[kind]!
            sources["\(kind.rawValue).subject"] = words.subject
            sources["\(kind.rawValue).text"] = words.text
            sources["\(kind.rawValue).html"] = words.html
        }
        sources["layout.html"] = Self.layout
        if let directory {
            for name in Array(sources.keys) {
                let file = directory.appendingPathComponent("\(name).mustache")
                guard FileManager.default.fileExists(atPath: file.path) else { continue }
                sources[name] = try String(contentsOf: file, encoding: .utf8)
            }
        }
        var library = MustacheLibrary()
        for (name, source) in sources {
            let text = name.hasSuffix(".html") ? source : "{{% CONTENT_TYPE: TEXT}}" + source
            do {
                try library.register(text, named: name)
            } catch {
                throw ConfigurationError("mail template \(name) does not parse: \(error)")
            }
        }
        self.library = library
    }

    func render(_ kind: Kind, _ values: [String: Any]) -> Rendered {
        let subject = library.render(values, withTemplate: "\(kind.rawValue).subject") ?? ""
        let body = library.render(values, withTemplate: "\(kind.rawValue).html") ?? ""
        var page = values
        page["body"] = body
        page["subject"] = subject
        return Rendered(
            subject: subject.split(whereSeparator: \.isNewline).joined(separator: " ")
                .trimmingCharacters(in: .whitespaces),
            text: library.render(values, withTemplate: "\(kind.rawValue).text") ?? "",
            html: library.render(page, withTemplate: "layout.html") ?? body)
    }

    static let layout = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>{{subject}}</title></head>
        <body style="margin:0;padding:24px;background:#f4f4f5;font-family:-apple-system,Segoe UI,Roboto,sans-serif;color:#18181b">
        <div style="max-width:480px;margin:0 auto;background:#ffffff;border-radius:12px;padding:28px">
        <p style="margin:0 0 20px;font-weight:600;font-size:18px">{{appName}}</p>
        {{{body}}}
        <p style="margin:28px 0 0;font-size:12px;color:#71717a">This mail went to {{email}}.{{#supportEmail}} Questions: {{supportEmail}}.{{/supportEmail}}</p>
        </div></body></html>
        """

    private static let builtIn: [Kind: (subject: String, text: String, html: String)] = [
        .verifyEmail: (
            "{{code}} is your {{appName}} confirmation code",
            """
            Confirm your email address for {{appName}}.

            Your code: {{code}}

            Or open this link: {{link}}

            Both work once and expire in {{expiresIn}}. If you did not create a {{appName}} account, ignore this mail.

            """,
            """
            <p>Confirm your email address for {{appName}}. Your code:</p>
            <p style="font-size:28px;letter-spacing:6px;font-weight:700">{{code}}</p>
            <p><a href="{{link}}" style="color:#2563eb">Or confirm with this link</a>.</p>
            <p style="color:#52525b">Both work once and expire in {{expiresIn}}. If you did not create a {{appName}} account, ignore this mail.</p>
            """
        ),
        .alreadyRegistered: (
            "You already have a {{appName}} account",
            """
            Someone, probably you, tried to create a {{appName}} account with this address. It already has one.

            Sign in with it, or set a new password here: {{link}} (the link works once and expires in {{expiresIn}}).

            If this was not you, nothing changed and you can ignore this mail.

            """,
            """
            <p>Someone, probably you, tried to create a {{appName}} account with this address. It already has one.</p>
            <p>Sign in with it, or <a href="{{link}}" style="color:#2563eb">set a new password</a> (the link works once and expires in {{expiresIn}}).</p>
            <p style="color:#52525b">If this was not you, nothing changed and you can ignore this mail.</p>
            """
        ),
        .resetPassword: (
            "Reset your {{appName}} password",
            """
            Someone, probably you, asked to reset the password of your {{appName}} account.

            Set a new password here: {{link}}

            The link works once and expires in {{expiresIn}}. If you did not ask, ignore this mail: your password stays as it is.

            """,
            """
            <p>Someone, probably you, asked to reset the password of your {{appName}} account.</p>
            <p><a href="{{link}}" style="display:inline-block;background:#18181b;color:#ffffff;padding:10px 16px;border-radius:8px;text-decoration:none">Set a new password</a></p>
            <p style="color:#52525b">The link works once and expires in {{expiresIn}}. If you did not ask, ignore this mail: your password stays as it is.</p>
            """
        ),
        .passwordChanged: (
            "Your {{appName}} password was changed",
            """
            The password of your {{appName}} account was changed on {{when}}.{{#signedOut}} Every device was signed out.{{/signedOut}}

            If this was not you, use "Forgot password" in {{appName}} now to set a new one.

            """,
            """
            <p>The password of your {{appName}} account was changed on {{when}}.{{#signedOut}} Every device was signed out.{{/signedOut}}</p>
            <p style="color:#52525b">If this was not you, use "Forgot password" in {{appName}} now to set a new one.</p>
            """
        ),
        .confirmNewEmail: (
            "{{code}} confirms your new {{appName}} address",
            """
            Confirm {{newEmail}} as the new address of your {{appName}} account.

            Your code: {{code}}

            Or open this link: {{link}}

            Both work once and expire in {{expiresIn}}. Until then your account keeps its old address. If you did not ask for this, ignore this mail.

            """,
            """
            <p>Confirm {{newEmail}} as the new address of your {{appName}} account. Your code:</p>
            <p style="font-size:28px;letter-spacing:6px;font-weight:700">{{code}}</p>
            <p><a href="{{link}}" style="color:#2563eb">Or confirm with this link</a>.</p>
            <p style="color:#52525b">Both work once and expire in {{expiresIn}}. Until then your account keeps its old address. If you did not ask for this, ignore this mail.</p>
            """
        ),
        .emailChanged: (
            "Your {{appName}} address was changed",
            """
            The address of your {{appName}} account was changed from {{email}} to {{newEmail}} on {{when}}.

            If this was not you, take it back: {{link}}
            That puts {{email}} back, signs every device out, and works for {{expiresIn}}.

            """,
            """
            <p>The address of your {{appName}} account was changed from {{email}} to {{newEmail}} on {{when}}.</p>
            <p>If this was not you, <a href="{{link}}" style="color:#2563eb">take it back</a>: that puts {{email}} back, signs every device out, and works for {{expiresIn}}.</p>
            """
        ),
        .signInCode: (
            "{{code}} is your {{appName}} sign-in code",
            """
            Your {{appName}} sign-in code: {{code}}

            It works once and expires in {{expiresIn}}. If you did not ask to sign in, ignore this mail: nobody can sign in without the code.

            """,
            """
            <p>Your {{appName}} sign-in code:</p>
            <p style="font-size:28px;letter-spacing:6px;font-weight:700">{{code}}</p>
            <p style="color:#52525b">It works once and expires in {{expiresIn}}. If you did not ask to sign in, ignore this mail: nobody can sign in without the code.</p>
            """
        ),
    ]
}
