import Foundation
import ServiceHTTP
import Synchronization

/// A real SMTP server on a loopback port, for the mail tests: aiosmtpd from PyPI (installed by
/// scripts/setup) run by `scripts/lib/smtp-server.py`, with STARTTLS or implicit TLS on the
/// data directory's local authority, AUTH with one user, and every accepted message kept as a
/// file.
public final class SMTPServer: Sendable {
    public enum Mode: String, Sendable {
        case startTLS = "starttls"
        case implicitTLS = "tls"
        case plain
    }

    public static let user = "pinhole"
    public static let password = "smtp secret"

    public let port: Int
    public let maildir: URL
    private let process: Mutex<ChildProcess?>
    private let launch: @Sendable (_ onLine: @escaping @Sendable (String) -> Void) throws -> ChildProcess

    /// The repository's root (for `scripts/lib`).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private init(
        port: Int, maildir: URL,
        launch: @escaping @Sendable (_ onLine: @escaping @Sendable (String) -> Void) throws -> ChildProcess
    ) {
        self.port = port
        self.maildir = maildir
        self.launch = launch
        self.process = Mutex(nil)
    }

    /// Starts a server with the certificate of `directory`'s auth (trusted by its `pki/ca.crt`),
    /// keeping mail under `directory/smtp-received`; waits until it accepts connections.
    public static func start(mode: Mode, in directory: TestDataDirectory, auth: Bool = true) async throws -> SMTPServer
    {
        let port = try FreePort.next()
        let maildir = directory.url.appendingPathComponent("smtp-received", isDirectory: true)
        let pki = directory.url.appendingPathComponent("pki")
        var arguments = [
            "python3", root.appendingPathComponent("scripts/lib/smtp-server.py").path, "--port", String(port),
            "--mode", mode.rawValue, "--maildir", maildir.path,
            "--cert", pki.appendingPathComponent("auth.crt").path, "--key", pki.appendingPathComponent("auth.key").path,
        ]
        if auth { arguments += ["--user", user, "--password", password] }
        let launch: @Sendable (_ onLine: @escaping @Sendable (String) -> Void) throws -> ChildProcess = {
            [arguments] onLine in
            try ChildProcess(
                name: "smtp", executable: URL(fileURLWithPath: "/usr/bin/env"), arguments: arguments,
                environment: ProcessInfo.processInfo.environment, onLine: onLine)
        }
        let server = SMTPServer(port: port, maildir: maildir, launch: launch)
        try await server.resume()
        return server
    }

    /// The authority that signed the server's certificate.
    public static func authority(of directory: TestDataDirectory) -> String {
        directory.url.appendingPathComponent("pki/ca.crt").path
    }

    /// Starts the server again on the same port (after ``pause()``).
    public func resume() async throws {
        let ready = Mutex(false)
        let started = try launch { line in if line.hasPrefix("ready") { ready.withLock { $0 = true } } }
        process.withLock { $0 = started }
        for _ in 0..<300 {
            if ready.withLock({ $0 }) { return }
            guard started.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        await pause()
        throw CocoaError(.fileReadUnknown)
    }

    /// Stops the server: connections are refused until ``resume()``.
    public func pause() async {
        guard let running = process.withLock({ $0 }) else { return }
        running.send(SIGKILL)
        await running.waitForExit()
        process.withLock { $0 = nil }
    }

    /// The messages received, oldest first, as their wire text.
    public func received() throws -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: maildir.path)) ?? []
        return try files.filter { $0.hasSuffix(".eml") }.sorted().map {
            try String(contentsOf: maildir.appendingPathComponent($0), encoding: .utf8)
        }
    }

    public func stop() async { await pause() }
}
