import AsyncHTTPClient
import Foundation
import ServiceHTTP
import Synchronization

/// moto's server mode (PyPI's `moto[server]`, installed by scripts/setup): a real S3
/// implementation on a loopback port, offline, for the S3 blob backend's tests.
public final class MotoServer: Sendable {
    public let port: Int
    private let process: ChildProcess

    /// The Python interpreter that has moto, or nil. Found through `python3` on `PATH` (which
    /// may be a wrapper such as pyenv's shim); moto is then started by the interpreter itself,
    /// so the process the test stops is moto's.
    public static func python() async -> URL? {
        let found = Mutex<String?>(nil)
        guard
            let probe = try? ChildProcess(
                name: "moto-probe", executable: URL(fileURLWithPath: "/usr/bin/env"),
                arguments: ["python3", "-c", "import sys, moto.server, flask; print(sys.executable)"],
                environment: ProcessInfo.processInfo.environment,
                onLine: { line in found.withLock { $0 = $0 ?? line } })
        else { return nil }
        guard await probe.waitForExit() == 0, let path = found.withLock({ $0 }), path.hasPrefix("/") else {
            return nil
        }
        return URL(fileURLWithPath: path)
    }

    private init(port: Int, process: ChildProcess) {
        self.port = port
        self.process = process
    }

    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// Starts moto with `python` on a free port and waits until it answers.
    public static func start(python: URL) async throws -> MotoServer {
        let port = try FreePort.next()
        let process = try ChildProcess(
            name: "moto", executable: python,
            arguments: ["-m", "moto.server", "-H", "127.0.0.1", "-p", String(port)],
            environment: ProcessInfo.processInfo.environment, onLine: { _ in })
        let server = MotoServer(port: port, process: process)
        for _ in 0..<200 {
            var request = HTTPClientRequest(url: "\(server.endpoint)/moto-api/")
            request.method = .GET
            if let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(1)),
                response.status.code < 500
            {
                return server
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        await server.stop()
        throw CocoaError(.fileReadUnknown)
    }

    /// Creates a bucket (moto takes unsigned bucket creation).
    public func createBucket(_ name: String) async throws {
        var request = HTTPClientRequest(url: "\(endpoint)/\(name)")
        request.method = .PUT
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        guard response.status.code == 200 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Stops it at once (its development server does not end on SIGTERM while serving).
    public func stop() async {
        process.send(SIGKILL)
        await process.waitForExit()
    }
}
