import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to a loopback port, for tests that must send what no HTTP client
/// would (malformed requests, half a preface, nothing at all) and watch how the server ends it.
/// Blocking reads with a timeout; run it off the cooperative pool's hot path only in tests.
public final class RawConnection: @unchecked Sendable {
    private let descriptor: Int32

    public init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EBADF) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        // On failure `deinit` closes the socket (it runs for an object whose init throws once
        // every property is set); closing it here too could close another test's descriptor.
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Sends all of `bytes`; false when the server has already closed.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if result <= 0 { return false }
            sent += result
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Ends this side's writing (TCP FIN), as a client that gives up does.
    public func closeWriting() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Reads until the server closes the connection or `timeout` passes. Returns what arrived
    /// and whether the connection was closed by the server within the time.
    public func readUntilClosed(timeout: Duration) async -> (bytes: [UInt8], closed: Bool) {
        await onItsOwnThread { $0.read(timeout: timeout) { _ in false } }
    }

    /// Reads until `marker` has arrived, the server closes the connection or `timeout` passes;
    /// returns what arrived.
    public func read(until marker: String, timeout: Duration) async -> [UInt8] {
        let marker = Array(marker.utf8)
        return await onItsOwnThread { connection in
            connection.read(timeout: timeout) { received in
                received.count >= marker.count
                    && (0...(received.count - marker.count)).contains {
                        received[$0..<($0 + marker.count)].elementsEqual(marker)
                    }
            }.bytes
        }
    }

    /// Reads until what arrived is `enough`, the server closes the connection or `timeout`
    /// passes; returns what arrived.
    public func read(timeout: Duration, until enough: @escaping @Sendable ([UInt8]) -> Bool) async -> [UInt8] {
        await onItsOwnThread { $0.read(timeout: timeout, enough: enough).bytes }
    }

    /// Runs `read` (which blocks) on a thread of its own. The servers a test starts run in the
    /// same process on the cooperative pool, which has a thread per core: two tests blocked in
    /// reads on a two-core machine stall every server until their reads time out (so every
    /// read goes through here).
    private func onItsOwnThread<Result: Sendable>(
        _ read: @escaping @Sendable (RawConnection) -> Result
    ) async -> Result {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: read(self)) }.start()
        }
    }

    private func read(timeout: Duration, enough: ([UInt8]) -> Bool) -> (bytes: [UInt8], closed: Bool) {
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while ContinuousClock.now < deadline, !enough(received) {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let left = deadline - ContinuousClock.now
            let milliseconds = Int32(
                max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (received, true) }
            received += buffer[0..<count]
        }
        return (received, false)
    }

    /// The HTTP/1.1 status and body of what `readUntilClosed` returned.
    public static func parse(_ bytes: [UInt8]) -> (status: Int, body: String)? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n"), text.hasPrefix("HTTP/1.1 ") else { return nil }
        let status = Int(text.dropFirst(9).prefix(3)) ?? 0
        return (status, String(text[headEnd.upperBound...]))
    }
}
