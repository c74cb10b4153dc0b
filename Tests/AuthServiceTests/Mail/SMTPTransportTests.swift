import Foundation
import ServiceStore
import TestSupport
import Testing

@testable import AuthService

/// The SMTP transport against a real SMTP server (aiosmtpd), over STARTTLS and implicit TLS
/// with AUTH, and how each kind of failure reaches the job runner.
@Suite struct SMTPTransportTests {
    static func message(to address: String = "reader@example.com") -> MailMessage {
        MailMessage(
            id: UUID().uuidString.lowercased(), from: "Pinhole <no-reply@pinhole.example>", to: address,
            subject: "Grüße from Pinhole", text: "Your code: 123456\n", html: "<p>Your code: <b>123456</b></p>",
            date: Date(timeIntervalSince1970: 1_796_405_531))
    }

    func settings(
        _ server: SMTPServer, _ security: SMTPSettings.Security, in directory: TestDataDirectory
    )
        -> SMTPSettings
    {
        SMTPSettings(
            server: "localhost:\(server.port)", security: security, username: SMTPServer.user,
            password: SMTPServer.password, caFile: SMTPServer.authority(of: directory), timeout: 10)
    }

    @Test(arguments: [(SMTPServer.Mode.startTLS, SMTPSettings.Security.startTLS), (.implicitTLS, .implicitTLS)])
    func aMessageArrivesWholeOverTLSWithAuth(mode: SMTPServer.Mode, security: SMTPSettings.Security) async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        let server = try await SMTPServer.start(mode: mode, in: directory)
        defer { Task { await server.stop() } }
        let message = Self.message()
        try await SMTPTransport(settings: settings(server, security, in: directory)).send(message)
        let received = try #require(try server.received().first)
        #expect(received.hasPrefix("X-Envelope-To: reader@example.com\r\n"))
        let parsed = received.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(parsed.contains("Message-ID: <\(message.id)@pinhole.example>"))
        #expect(parsed.contains("Subject: =?UTF-8?B?R3LDvMOfZSBmcm9tIFBpbmhvbGU=?="))
        #expect(parsed.contains(Data(message.text.utf8).base64EncodedString()))
        await server.stop()
    }

    @Test func aWrongPasswordFailsForGoodAndARefusedConnectionIsRetried() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        let server = try await SMTPServer.start(mode: .startTLS, in: directory)
        var wrong = settings(server, .startTLS, in: directory)
        wrong.password = "not the password"
        await #expect {
            try await SMTPTransport(settings: wrong).send(Self.message())
        } throws: { error in
            guard case JobFailure.permanent = error else { return false }
            return true
        }
        await server.pause()
        await #expect {
            try await SMTPTransport(settings: settings(server, .startTLS, in: directory)).send(Self.message())
        } throws: { error in error is SMTPError }
        try await server.resume()
        try await SMTPTransport(settings: settings(server, .startTLS, in: directory)).send(Self.message())
        #expect(try server.received().count == 1)
        await server.stop()
    }

    @Test func noMailGoesInTheClearOrToACertificateNobodyVouchesFor() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        // A server that offers no STARTTLS: the upgrade is required, so nothing is sent.
        let plain = try await SMTPServer.start(mode: .plain, in: directory, auth: false)
        await #expect(throws: SMTPError.self) {
            try await SMTPTransport(settings: settings(plain, .startTLS, in: directory)).send(Self.message())
        }
        #expect(try plain.received().isEmpty)
        await plain.stop()
        // The system's authorities do not know the test's: the certificate is refused.
        let tls = try await SMTPServer.start(mode: .startTLS, in: directory)
        var untrusted = settings(tls, .startTLS, in: directory)
        untrusted.caFile = nil
        await #expect(throws: SMTPError.self) { try await SMTPTransport(settings: untrusted).send(Self.message()) }
        #expect(try tls.received().isEmpty)
        await tls.stop()
    }
}
