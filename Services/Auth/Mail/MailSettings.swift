import Configuration
import Foundation
import ServiceHTTP

/// Mail and the account flows that send it.
///
/// Keys:
/// - `mail.from` (default `Pinhole <no-reply@localhost>`): the sender, `Name <address>`; its
///   domain names the `Message-ID`s.
/// - `mail.appName` (default `Pinhole`): the app the mails speak for.
/// - `mail.supportEmail` (default none): an address the mails' footer names for questions.
/// - `mail.linkBaseUrl` (default `http://127.0.0.1:8080`, the gateway of `pinhole up`): the
///   public address the default links start with.
/// - `mail.links.verifyEmail` (default `<linkBaseUrl>/v1/auth/email/verify?token={token}`),
///   `mail.links.resetPassword` (default `<linkBaseUrl>/v1/auth/password/reset?token={token}`),
///   `mail.links.confirmEmail` (default `<linkBaseUrl>/v1/auth/email/confirm?token={token}`),
///   `mail.links.undoEmailChange` (default `<linkBaseUrl>/v1/auth/email/undo?token={token}`):
///   the links the mails carry; `{token}` is replaced. The defaults are auth's own small web
///   pages; an app that opens them itself (a universal link) sets its own URL and posts the
///   token to the same route as JSON.
/// - `mail.templatesDir` (default none): a folder whose `<kind>.subject.mustache`,
///   `<kind>.text.mustache`, `<kind>.html.mustache` and `layout.html.mustache` replace the
///   built-in templates one by one (docs/MAIL.md lists the kinds and their values).
/// - `mail.smtp.server` (default none: mail goes to the mailbox): `host:port` of the SMTP
///   server (Postmark, SES, Mailgun, a company relay).
/// - `mail.smtp.security` (default `starttls`): `starttls` (port 587; the upgrade must work),
///   `tls` (implicit TLS, port 465), or `none` (only for a relay on the same network).
/// - `mail.smtp.username`, `mail.smtp.password` (secret): AUTH, when the server asks for it.
/// - `mail.smtp.caFile` (default: the system's): a PEM file of the authorities to trust.
/// - `mail.smtp.timeoutSeconds` (default 30): the longest one delivery may take.
/// - `mail.mailboxDir` (default `<data.dir>/mailbox`): where mail is written, one `.eml` file
///   each, when no SMTP server is set (`pinhole mail` reads it).
/// - `auth.email.verificationTtlHours` (default 24): how long a verification code and link work.
/// - `auth.email.resetTtlMinutes` (default 60): how long a password reset link works.
/// - `auth.email.undoDays` (default 7): how long the old address can take a change back.
/// - `auth.email.codeTtlMinutes` (default 10): how long a sign-in code works.
/// - `auth.email.maxAttempts` (default 5): wrong codes a code allows before it is spent.
/// - `auth.email.perAddressPerHour` (default 5): mails any one address can be sent an hour by
///   the routes that send them (registration's mail is skipped beyond it; the others answer
///   429).
/// - `auth.email.signInCodes` (default false): whether `POST /v1/auth/email/code` signs in by a
///   mailed code (passwordless).
struct MailSettings: Sendable {
    var from: String
    var appName: String
    var supportEmail: String?
    var links: Links
    var templatesDirectory: URL?
    var smtp: SMTPSettings?
    var mailboxDirectory: URL
    var verificationTTL: TimeInterval
    var resetTTL: TimeInterval
    var undoTTL: TimeInterval
    var codeTTL: TimeInterval
    var maxAttempts: Int
    var perAddressPerHour: Int
    var signInCodes: Bool

    /// URL templates with `{token}`.
    struct Links: Sendable {
        var verifyEmail: String
        var resetPassword: String
        var confirmEmail: String
        var undoEmailChange: String

        func url(_ template: String, token: String) -> String {
            template.replacingOccurrences(of: "{token}", with: token)
        }
    }

    init(reader: ConfigReader, dataDirectory: URL) throws {
        self.from = reader.string(forKey: "mail.from", default: "Pinhole <no-reply@localhost>")
        guard MailMessage.address(in: from).contains("@") else {
            throw ConfigurationError("mail.from must be an address, or Name <address>")
        }
        self.appName = reader.string(forKey: "mail.appName", default: "Pinhole")
        self.supportEmail = reader.string(forKey: "mail.supportEmail")
        var base = reader.string(forKey: "mail.linkBaseUrl", default: "http://127.0.0.1:8080")
        while base.hasSuffix("/") { base.removeLast() }
        self.links = Links(
            verifyEmail: reader.string(
                forKey: "mail.links.verifyEmail", default: "\(base)/v1/auth/email/verify?token={token}"),
            resetPassword: reader.string(
                forKey: "mail.links.resetPassword", default: "\(base)/v1/auth/password/reset?token={token}"),
            confirmEmail: reader.string(
                forKey: "mail.links.confirmEmail", default: "\(base)/v1/auth/email/confirm?token={token}"),
            undoEmailChange: reader.string(
                forKey: "mail.links.undoEmailChange", default: "\(base)/v1/auth/email/undo?token={token}"))
        for link in [links.verifyEmail, links.resetPassword, links.confirmEmail, links.undoEmailChange]
        where !link.contains("{token}") {
            throw ConfigurationError("mail.links.* must each contain {token}: \(link)")
        }
        self.templatesDirectory = reader.string(forKey: "mail.templatesDir").map {
            URL(fileURLWithPath: $0, isDirectory: true)
        }
        if let server = reader.string(forKey: "mail.smtp.server") {
            let securityText = reader.string(forKey: "mail.smtp.security", default: "starttls")
            guard let security = SMTPSettings.Security(rawValue: securityText) else {
                throw ConfigurationError("mail.smtp.security must be starttls, tls or none")
            }
            self.smtp = SMTPSettings(
                server: server, security: security, username: reader.string(forKey: "mail.smtp.username"),
                password: reader.string(forKey: "mail.smtp.password", isSecret: true),
                caFile: reader.string(forKey: "mail.smtp.caFile"),
                timeout: try reader.integer("mail.smtp.timeoutSeconds", default: 30, in: 1...600))
        }
        self.mailboxDirectory = URL(
            fileURLWithPath: reader.string(
                forKey: "mail.mailboxDir", default: dataDirectory.appendingPathComponent("mailbox").path),
            isDirectory: true)
        self.verificationTTL =
            TimeInterval(try reader.integer("auth.email.verificationTtlHours", default: 24, in: 1...168)) * 3600
        self.resetTTL = TimeInterval(try reader.integer("auth.email.resetTtlMinutes", default: 60, in: 5...60)) * 60
        self.undoTTL = TimeInterval(try reader.integer("auth.email.undoDays", default: 7, in: 1...30)) * 86_400
        self.codeTTL = TimeInterval(try reader.integer("auth.email.codeTtlMinutes", default: 10, in: 1...60)) * 60
        self.maxAttempts = try reader.integer("auth.email.maxAttempts", default: 5, in: 1...20)
        self.perAddressPerHour = try reader.integer("auth.email.perAddressPerHour", default: 5, in: 1...100)
        self.signInCodes = try reader.boolean("auth.email.signInCodes", default: false)
    }

    /// The transport these settings name.
    func transport() -> any MailTransport {
        if let smtp { SMTPTransport(settings: smtp) } else { Mailbox(directory: mailboxDirectory) }
    }
}
