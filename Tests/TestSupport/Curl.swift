import Foundation
import ServiceHTTP

/// curl, a real HTTP/1.1 and HTTP/2 client from outside the project.
public enum Curl {
    /// Runs curl with `arguments`; returns the negotiated HTTP version and the status code.
    public static func run(_ arguments: [String]) async throws -> (version: String, status: String) {
        let output = LineCollector()
        let process = try ChildProcess(
            name: "curl", executable: URL(fileURLWithPath: "/usr/bin/env"),
            arguments: ["curl", "-s", "-m", "20", "-o", "/dev/null", "-w", "%{http_version} %{http_code}\\n"]
                + arguments,
            environment: ProcessInfo.processInfo.environment, onLine: output.append)
        await process.waitForExit()
        let parts = output.lines.joined().split(separator: " ")
        guard parts.count == 2 else { return ("?", output.lines.joined()) }
        return (String(parts[0]), String(parts[1]))
    }

    /// Runs curl with `arguments` and answers every header block it received, informational
    /// ones included, as lines (`HTTP/2 104`, `location: …`, then the final answer's).
    public static func heads(_ arguments: [String]) async throws -> [String] {
        let output = LineCollector()
        let process = try ChildProcess(
            name: "curl", executable: URL(fileURLWithPath: "/usr/bin/env"),
            arguments: ["curl", "-s", "-m", "20", "-o", "/dev/null", "-D", "-"] + arguments,
            environment: ProcessInfo.processInfo.environment, onLine: output.append)
        await process.waitForExit()
        return output.lines.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }
}
