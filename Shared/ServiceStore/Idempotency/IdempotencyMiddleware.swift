import Contracts
import Crypto
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceHTTP
import Synchronization

/// Makes creating endpoints safe to retry with an `Idempotency-Key` header.
///
/// The first request with a key runs and, when it succeeds (2xx), its answer is stored in the
/// service's own database for 24 hours. A repeat with the same key and the same request
/// (method, path and body) gets the stored answer back with `Idempotent-Replayed: true`; the
/// same key with a different request is refused with 422 `IDEMPOTENCY_KEY_REUSED`; a repeat
/// while the first is still running gets 409 `IDEMPOTENCY_KEY_IN_PROGRESS`. A request that
/// fails releases its key, so a corrected retry can use it. A key held by a request that
/// never finished is released when the service starts again (the process crashed; see
/// ``ServiceDatabase``), or after `abandonAfter` seconds.
///
/// Keys are scoped to the authenticated user; anonymous requests are scoped to the request
/// itself, so one client can never receive another's stored answer.
public struct IdempotencyMiddleware<Context: ServiceRequestContextProtocol>: RouterMiddleware {
    let database: DatabasePool
    let clock: any WallClock
    let retention: TimeInterval
    let abandonAfter: TimeInterval
    let maxBodyBytes: Int

    public init(
        database: DatabasePool, clock: any WallClock, retention: TimeInterval = 86_400,
        abandonAfter: TimeInterval = 60, maxBodyBytes: Int = 1 << 20
    ) {
        self.database = database
        self.clock = clock
        self.retention = retention
        self.abandonAfter = abandonAfter
        self.maxBodyBytes = maxBodyBytes
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let key = request.headers[.idempotencyKey] else {
            return try await next(request, context)
        }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
            throw ServiceError(
                .invalidIdempotencyKey, "Idempotency-Key must be 1 to 255 visible ASCII characters.")
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maxBodyBytes)
        } catch {
            throw ServiceError(.payloadTooLarge, "The body is larger than \(maxBodyBytes) bytes.")
        }
        request.body = RequestBody(buffer: body)
        let fingerprint = Self.fingerprint(method: request.method, path: request.uri.description, body: body)
        let scope = context.user.map { "user:\($0.userID)" } ?? "anonymous:\(fingerprint)"

        switch try await claim(scope: scope, key: key, fingerprint: fingerprint) {
        case .replay(let response):
            return response
        case .claimed:
            break
        }
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            try? await release(scope: scope, key: key)
            throw error
        }
        guard (200..<300).contains(response.status.code) else {
            try? await release(scope: scope, key: key)
            return response
        }
        return try await store(response, scope: scope, key: key)
    }

    enum Claim {
        case claimed
        case replay(Response)
    }

    private func claim(scope: String, key: String, fingerprint: String) async throws -> Claim {
        let now = clock.now()
        let (retention, abandonAfter) = (self.retention, self.abandonAfter)
        return try await database.tracedWrite { db -> Claim in
            try db.cachedStatement(
                sql:
                    "DELETE FROM kit_idempotency_key WHERE rowid IN (SELECT rowid FROM kit_idempotency_key WHERE expires_at < ? LIMIT 100)"
            ).execute(arguments: [StoredDate(now)])
            if var stored = try IdempotencyKeyRecord.claim(of: key, in: scope, db: db) {
                guard stored.fingerprint == fingerprint else {
                    throw ServiceError(
                        .idempotencyKeyReused, "This Idempotency-Key was already used for a different request.")
                }
                if let status = stored.status {
                    return .replay(Self.replay(status: status, headers: stored.headers, body: stored.body))
                }
                guard now.timeIntervalSince(stored.createdAt) > abandonAfter else {
                    throw ServiceError(
                        .idempotencyKeyInProgress, "A request with this Idempotency-Key is still being processed.",
                        headers: [.retryAfter: "1"])
                }
                stored.createdAt = now
                try stored.update(db)
                return .claimed
            }
            try IdempotencyKeyRecord(
                scope: scope, key: key, fingerprint: fingerprint, createdAt: now,
                expiresAt: now.addingTimeInterval(retention)
            ).insert(db)
            return .claimed
        }
    }

    private func release(scope: String, key: String) async throws {
        try await database.tracedWrite { db in
            _ = try IdempotencyKeyRecord.filter(key: ["scope": scope, "key": key])
                .filter(IdempotencyKeyRecord.Columns.status == nil).deleteAll(db)
        }
    }

    private func store(_ response: Response, scope: String, key: String) async throws -> Response {
        let collector = ByteCollector()
        var response = response
        try await response.body.write(CollectingWriter(collector: collector))
        let body = collector.bytes
        var kept: [String: String] = [:]
        for field in response.headers where Self.storedHeaders.contains(field.name) {
            kept[field.name.canonicalName] = field.value
        }
        let headers = try JSONEncoder().encode(kept)
        let status = response.status.code
        try await database.tracedWrite { db in
            typealias Columns = IdempotencyKeyRecord.Columns
            _ = try IdempotencyKeyRecord.filter(key: ["scope": scope, "key": key]).updateAll(
                db,
                [Columns.status.set(to: status), Columns.headers.set(to: headers), Columns.body.set(to: Data(body))])
        }
        response.body = ResponseBody(byteBuffer: ByteBuffer(bytes: body))
        return response
    }

    static var storedHeaders: Set<HTTPField.Name> { [.contentType, .location] }

    static func replay(status: Int, headers: Data?, body: Data?) -> Response {
        var fields = HTTPFields()
        if let headers, let stored = try? JSONDecoder().decode([String: String].self, from: headers) {
            for (name, value) in stored {
                if let name = HTTPField.Name(name) { fields[name] = value }
            }
        }
        fields[.idempotentReplayed] = "true"
        return Response(
            status: .init(code: status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body ?? Data())))
    }

    static func fingerprint(method: HTTPRequest.Method, path: String, body: ByteBuffer) -> String {
        var hasher = SHA256()
        hasher.update(data: Data("\(method.rawValue) \(path)\n".utf8))
        hasher.update(data: Data(body.readableBytesView))
        return Hex.encode(hasher.finalize())
    }
}

/// Gathers a response body so it can be stored and sent.
final class ByteCollector: Sendable {
    private let storage = Mutex<[UInt8]>([])
    var bytes: [UInt8] { storage.withLock { $0 } }
    func append(_ buffer: ByteBuffer) { storage.withLock { $0.append(contentsOf: buffer.readableBytesView) } }
}

struct CollectingWriter: ResponseBodyWriter {
    let collector: ByteCollector
    mutating func write(_ buffer: ByteBuffer) async throws { collector.append(buffer) }
    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
