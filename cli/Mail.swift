import ArgumentParser
import Configuration
import Foundation
import ServiceHTTP

/// `pinhole mail`: the local mailbox, where auth writes mail while no SMTP server is set, so a
/// laptop's stack can show "forgot password" without a mail account.
struct Mail: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List or print the mail auth wrote to the local mailbox (no SMTP server set).",
        subcommands: [List.self, Show.self], defaultSubcommand: List.self)

    struct MailboxOptions: ParsableArguments {
        @OptionGroup var stack: StackOptions

        @Option(help: "The mailbox folder. Default: MAIL_MAILBOX_DIR or <data dir>/mailbox")
        var mailbox: String?

        /// The mailbox's messages, oldest first.
        func messages() async throws -> [MailboxMessage] {
            let reader = try await stack.reader()
            let dataDirectory = try await stack.settings().dataDirectory
            let directory =
                mailbox ?? reader.string(forKey: "mail.mailboxDir")
                ?? dataDirectory.appendingPathComponent("mailbox").path
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            return try files.filter { $0.hasSuffix(".eml") }.sorted().map { name in
                let path = (directory as NSString).appendingPathComponent(name)
                return MailboxMessage(try String(contentsOfFile: path, encoding: .utf8))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One line per message, oldest first, numbered.")

        @OptionGroup var options: MailboxOptions

        func run() async throws {
            let messages = try await options.messages()
            guard !messages.isEmpty else { return print("The mailbox is empty.") }
            for (index, message) in messages.enumerated() {
                print(
                    "\(index + 1)  \(message.header("Date") ?? "")  \(message.header("To") ?? "")  \(message.subject)")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a message: its headers and its text.")

        @Argument(help: "The message's number in `pinhole mail list` (default: the newest).")
        var number: Int?

        @Flag(help: "Print the HTML part instead of the text part.")
        var html = false

        @OptionGroup var options: MailboxOptions

        func run() async throws {
            let messages = try await options.messages()
            let index = (number ?? messages.count) - 1
            guard messages.indices.contains(index) else {
                throw ValidationError("There is no message \(index + 1): the mailbox holds \(messages.count).")
            }
            let message = messages[index]
            for name in ["Date", "From", "To"] { print("\(name): \(message.header(name) ?? "")") }
            print("Subject: \(message.subject)\n")
            print(message.part(html ? "text/html" : "text/plain") ?? "(no such part)")
        }
    }
}

/// One `.eml` file as auth writes it: headers, then `multipart/alternative` parts in base64.
struct MailboxMessage {
    let headers: [(name: String, value: String)]
    let body: String

    init(_ text: String) {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n")
        let split = normalized.range(of: "\n\n")
        let head = split.map { String(normalized[..<$0.lowerBound]) } ?? normalized
        self.body = split.map { String(normalized[$0.upperBound...]) } ?? ""
        var headers: [(String, String)] = []
        for line in head.split(separator: "\n", omittingEmptySubsequences: false) {
            if let first = line.first, first == " " || first == "\t", !headers.isEmpty {
                headers[headers.count - 1].1 += " " + line.trimmingCharacters(in: .whitespaces)
            } else if let colon = line.firstIndex(of: ":") {
                headers.append(
                    (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
        }
        self.headers = headers
    }

    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The subject, RFC 2047 base64 words decoded.
    var subject: String {
        guard let value = header("Subject") else { return "" }
        guard value.hasPrefix("=?UTF-8?B?"), value.hasSuffix("?="),
            let data = Data(base64Encoded: String(value.dropFirst(10).dropLast(2)))
        else { return value }
        return String(decoding: data, as: UTF8.self)
    }

    /// The decoded body of the part of `type` (`text/plain`, `text/html`).
    func part(_ type: String) -> String? {
        guard
            let boundary = header("Content-Type")?.components(separatedBy: "boundary=\"").dropFirst().first?
                .components(separatedBy: "\"").first
        else { return nil }
        for section in body.components(separatedBy: "--\(boundary)") {
            let part = MailboxMessage(section.trimmingCharacters(in: .newlines))
            guard part.header("Content-Type")?.lowercased().hasPrefix(type) == true else { continue }
            guard part.header("Content-Transfer-Encoding")?.lowercased() == "base64" else { return part.body }
            let encoded = part.body.filter { !$0.isWhitespace }
            return Data(base64Encoded: encoded).map { String(decoding: $0, as: UTF8.self) }
        }
        return nil
    }
}
