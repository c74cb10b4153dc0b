import Foundation
import ServiceHTTP

/// Where mail leaves: an SMTP server (``SMTPTransport``) or, with none configured, the local
/// mailbox (``Mailbox``). A transport throws ``JobFailure/permanent(_:)`` when the server
/// refused the message for good; anything else is retried.
protocol MailTransport: Sendable {
    func send(_ message: MailMessage) async throws
}

/// The local default: each message is written as a `.eml` file (owner-only) into a folder
/// under the data directory, named so that a listing is in order of sending; `pinhole mail`
/// lists and prints them. A laptop's stack needs no mail server to show "forgot password".
struct Mailbox: MailTransport {
    let directory: URL

    func send(_ message: MailMessage) async throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = directory.appendingPathComponent(Self.fileName(of: message))
        // Written whole under a temporary name, then renamed: a reader never sees half a mail,
        // and a retry after a crash writes the same name again.
        let partial = directory.appendingPathComponent(".\(message.id).partial")
        try Data(message.rendered().utf8).write(to: partial)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: partial.path)
        _ = try? FileManager.default.removeItem(at: file)
        try FileManager.default.moveItem(at: partial, to: file)
    }

    /// `<milliseconds since 1970>-<id>.eml`: sorted by name is sorted by date.
    static func fileName(of message: MailMessage) -> String {
        let milliseconds = String(Int64(message.date.timeIntervalSince1970 * 1000))
        return String(repeating: "0", count: max(0, 15 - milliseconds.count)) + milliseconds + "-\(message.id).eml"
    }
}
