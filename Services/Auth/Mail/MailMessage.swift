import Foundation
import ServiceHTTP

/// One mail as it leaves: addresses, subject, a plain-text and an HTML body, and the headers
/// that make it a well-formed RFC 5322 message. It is stored in the `mail.send` job until a
/// transport accepted it; its `Message-ID` stays the same across retries, so a receiver that
/// got it twice (a crash after the server's answer, before the job's completion) shows one.
struct MailMessage: Codable, Sendable, Equatable {
    /// Unique: the job's key and the local part of `Message-ID`.
    var id: String
    /// `Name <address>` or a bare address, as configured.
    var from: String
    var to: String
    var subject: String
    var text: String
    var html: String
    var date: Date

    /// The bare address of `from`.
    var fromAddress: String { Self.address(in: from) }

    /// The message in wire form, CRLF line ends: headers, then `multipart/alternative` with
    /// the text part before the HTML part (clients show the last one they can), each
    /// base64-encoded UTF-8.
    func rendered() -> String {
        let boundary = "pinhole-\(id)"
        let domain = fromAddress.split(separator: "@").last.map(String.init) ?? "localhost"
        var lines = [
            "Date: \(Self.dateHeader(date))",
            "From: \(Self.encodedMailbox(from))",
            "To: \(to)",
            "Message-ID: <\(id)@\(domain)>",
            "Subject: \(Self.encodedWord(subject))",
            "MIME-Version: 1.0",
            "Auto-Submitted: auto-generated",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
            "",
        ]
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            lines += [
                "--\(boundary)",
                "Content-Type: \(type); charset=utf-8",
                "Content-Transfer-Encoding: base64",
                "",
            ]
            lines += Self.base64Lines(body)
        }
        lines += ["--\(boundary)--", ""]
        return lines.joined(separator: "\r\n")
    }

    /// RFC 5322 date-time in UTC: `Fri, 04 Dec 2026 17:50:00 +0000`.
    static func dateHeader(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let (year, month, dayOfMonth) = CivilDays.date(ordinal: day)
        let inDay = seconds - day * 86_400
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((day % 7) + 7) % 7]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(dayOfMonth)) \(months[month - 1]) \(year) "
            + "\(two(inDay / 3600)):\(two(inDay / 60 % 60)):\(two(inDay % 60)) +0000"
    }

    /// A header value as is when it is printable ASCII, else an RFC 2047 encoded word.
    static func encodedWord(_ text: String) -> String {
        let plain = text.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) }
        return plain ? text : "=?UTF-8?B?\(Data(text.utf8).base64EncodedString())?="
    }

    /// `Name <address>` with the name encoded when it needs it.
    static func encodedMailbox(_ mailbox: String) -> String {
        guard let open = mailbox.lastIndex(of: "<") else { return mailbox }
        let name = mailbox[..<open].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return mailbox }
        return "\(encodedWord(name)) \(mailbox[open...])"
    }

    /// The address of `Name <address>`, or the text itself.
    static func address(in mailbox: String) -> String {
        guard let open = mailbox.lastIndex(of: "<"), let close = mailbox.lastIndex(of: ">"), open < close else {
            return mailbox.trimmingCharacters(in: .whitespaces)
        }
        return String(mailbox[mailbox.index(after: open)..<close])
    }

    /// Base64 in lines of 76 characters (RFC 2045).
    static func base64Lines(_ text: String) -> [String] {
        let encoded = Array(Data(text.utf8).base64EncodedString().utf8)
        return stride(from: 0, to: encoded.count, by: 76).map {
            String(decoding: encoded[$0..<min($0 + 76, encoded.count)], as: UTF8.self)
        }
    }
}
