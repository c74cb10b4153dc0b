import Configuration
import Foundation
import ServiceHTTP
import Synchronization

/// A throw-away data directory with a local authority, certificates for every executable and
/// auth's first signing key: what `pinhole init` prepares, made for one test.
public struct TestDataDirectory: Sendable {
    public let url: URL

    /// A directory prepared elsewhere (a restored backup); ``remove()`` deletes it too.
    public init(existing url: URL) {
        self.url = url
    }

    /// Creates and prepares a new directory under the system temporary directory.
    public static func make(clock: any WallClock = SystemClock()) throws -> TestDataDirectory {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("pinhole-test-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try LocalAuthority(dataDirectory: url, clock: clock).prepare()
        try SigningKeyStore.createKey(
            in: SigningKeyStore.defaultDirectory(dataDirectory: url), clock: clock, entropy: SystemEntropy())
        return TestDataDirectory(existing: url)
    }

    /// Deletes the directory.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// Configuration for an in-process application over this directory; `extra` wins.
    public func reader(_ extra: [String: String] = [:]) -> ConfigReader {
        // Connects between services on loopback are instant on an idle machine; at the start of
        // a full run every suite handshakes on two cores at once (the default is one second).
        // Nothing leaves this machine: Expo (on by default, it needs no key) is off unless a
        // test points it at a fake.
        var values = [
            "data.dir": url.path, "http.port": "0", "log.level": "warning", "client.connectTimeoutMs": "5000",
            "alerts.expo.enabled": "false",
        ]
        values.merge(extra) { _, new in new }
        return ConfigReader.fixed(values)
    }

    /// Settings of one executable over this directory.
    public func settings(_ name: ServiceName, _ extra: [String: String] = [:]) throws -> ServiceSettings {
        try ServiceSettings(name: name, reader: reader(extra))
    }
}

/// Runs `body` with a fresh data directory and removes it afterwards.
public func withTestDataDirectory<T>(
    clock: any WallClock = SystemClock(), _ body: (TestDataDirectory) async throws -> T
) async throws -> T {
    let directory = try TestDataDirectory.make(clock: clock)
    defer { directory.remove() }
    return try await body(directory)
}

/// Free TCP ports on loopback, for processes that must know each other's ports up front.
///
/// Ports come from below the kernel's ephemeral range, so an outgoing connection made by some
/// other test between choosing a port and binding it cannot take it; within this process a port
/// is never handed out twice.
public enum FreePort {
    private static let handedOut = Mutex<Set<Int>>([])

    /// A port that is free now and was not handed out before.
    public static func next() throws -> Int {
        let ephemeralStart =
            (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first }.flatMap { Int($0) } ?? 32768
        for _ in 0..<200 {
            let candidate = Int.random(in: 10_000..<max(10_001, ephemeralStart))
            let claimed = handedOut.withLock { $0.insert(candidate).inserted }
            if claimed, canBind(candidate) { return candidate }
        }
        throw POSIXError(.EADDRINUSE)
    }

    private static func canBind(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }
}
