import Foundation
import GRDB
import ServiceHTTP

/// A row of `kit_idempotency_key`: an `Idempotency-Key` claimed by a request, and once that
/// request succeeded, its stored answer.
struct IdempotencyKeyRecord: ServiceRecord {
    static let databaseTableName = "kit_idempotency_key"

    /// `user:<id>`, or `anonymous:<fingerprint>` for requests without a user.
    var scope: String
    var key: String
    /// SHA-256 of the method, path and body: the same key with another request is refused.
    var fingerprint: String
    /// Nil while the first request runs.
    var status: Int? = nil
    /// The stored answer's kept headers, as a JSON object.
    var headers: Data? = nil
    var body: Data? = nil
    var createdAt: Date
    var expiresAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case scope, status, headers, body
    }

    /// The claim of `key` in `scope`, read with a statement the connection keeps: every write
    /// that carries an `Idempotency-Key` reads it.
    static func claim(of key: String, in scope: String, db: Database) throws -> IdempotencyKeyRecord? {
        try fetchOne(
            db.cachedStatement(sql: "SELECT * FROM kit_idempotency_key WHERE scope = ? AND key = ?"),
            arguments: [scope, key])
    }
}
