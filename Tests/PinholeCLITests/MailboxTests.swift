import Foundation
import Testing

@testable import AuthService
@testable import PinholeCLI

/// `pinhole mail` reads back what auth's mailbox writes.
@Suite struct MailboxTests {
    @Test func aWrittenMessageReadsBackWithItsSubjectAndBothParts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailbox-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let message = MailMessage(
            id: "0b9c1d2e", from: "Pinhole <no-reply@pinhole.example>", to: "zoë@example.com",
            subject: "Réinitialiser votre mot de passe", text: "Open this link: https://x.example/r?token=abc\n",
            html: "<p>Open <a href=\"https://x.example/r?token=abc\">this link</a></p>",
            date: Date(timeIntervalSince1970: 1_796_405_531))
        try await Mailbox(directory: directory).send(message)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files == [Mailbox.fileName(of: message)])
        let attributes = try FileManager.default.attributesOfItem(
            atPath: directory.appendingPathComponent(files[0]).path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        let read = MailboxMessage(try String(contentsOf: directory.appendingPathComponent(files[0]), encoding: .utf8))
        #expect(read.subject == message.subject)
        #expect(read.header("To") == "zoë@example.com")
        #expect(read.header("Date") == "Fri, 04 Dec 2026 17:32:11 +0000")
        #expect(read.part("text/plain") == message.text)
        #expect(read.part("text/html") == message.html)
    }
}
