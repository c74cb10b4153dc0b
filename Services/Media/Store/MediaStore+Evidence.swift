import Contracts
import Crypto
import Foundation
import GRDB
import ServiceKit

/// A row of `evidence`.
struct EvidenceRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "evidence"

    var id: String
    var tenantID: String
    var ownerID: String
    var incidentID: String
    var key: String
    var kind: EvidenceKind?
    var contentType: String
    var maxBytes: Int
    var size: Int?
    var sha256: String?
    var createdAt: Date
    var uploadedAt: Date?
    var finalizedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id, key, kind, size, sha256
        case tenantID = "tenant_id"
        case ownerID = "owner_id"
        case incidentID = "incident_id"
        case contentType = "content_type"
        case maxBytes = "max_bytes"
        case createdAt = "created_at"
        case uploadedAt = "uploaded_at"
        case finalizedAt = "finalized_at"
    }

    var evidence: Evidence {
        Evidence(
            id: id, incidentId: incidentID, key: key, kind: kind, contentType: contentType,
            size: finalizedAt == nil ? nil : size, sha256: finalizedAt == nil ? nil : sha256, createdAt: createdAt,
            finalizedAt: finalizedAt)
    }
}

extension EvidenceKind: DatabaseValueConvertible {}

/// A row of `custody_entry`.
struct CustodyRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "custody_entry"

    var evidenceID: String
    var sequence: Int
    var action: String
    var actorID: String
    var at: Date
    var previousHash: String
    var hash: String

    enum CodingKeys: String, CodingKey {
        case sequence, action, at, hash
        case evidenceID = "evidence_id"
        case actorID = "actor_id"
        case previousHash = "previous_hash"
    }

    static let genesis = String(repeating: "0", count: 64)

    /// The hash an entry must carry: over the previous hash and everything the entry says.
    static func hash(
        previous: String, evidence: String, sequence: Int, action: String, actor: String, at: Date
    )
        -> String
    {
        let text = [previous, evidence, String(sequence), action, actor, String(JSONCoding.milliseconds(at))]
            .joined(separator: "\n")
        return Hex.encode(SHA256.hash(data: Data(text.utf8)))
    }

    var entry: CustodyEntry {
        CustodyEntry(
            sequence: sequence, action: action, actorId: actorID, at: at, previousHash: previousHash, hash: hash)
    }
}

/// Evidence and its custody log (Transrify).
extension MediaStore {
    /// Appends a custody entry chained to the last one, in the caller's transaction.
    static func appendCustody(_ evidenceID: String, action: String, actor: String, at now: Date, in db: Database) throws
    {
        let last = try CustodyRecord.filter(sql: "evidence_id = ?", arguments: [evidenceID])
            .order(sql: "sequence DESC").fetchOne(db)
        let sequence = (last?.sequence ?? 0) + 1
        let previous = last?.hash ?? CustodyRecord.genesis
        try CustodyRecord(
            evidenceID: evidenceID, sequence: sequence, action: action, actorID: actor, at: now, previousHash: previous,
            hash: CustodyRecord.hash(
                previous: previous, evidence: evidenceID, sequence: sequence, action: action, actor: actor, at: now)
        ).insert(db)
    }

    func createEvidence(_ record: EvidenceRecord) async throws {
        try await database.write { db in
            try record.insert(db)
            try Self.appendCustody(record.id, action: "created", actor: record.ownerID, at: record.createdAt, in: db)
        }
    }

    func evidence(id: String) async throws -> EvidenceRecord? {
        try await database.read { db in try EvidenceRecord.fetchOne(db, key: id) }
    }

    func evidence(key: String) async throws -> EvidenceRecord? {
        try await database.read { db in
            try EvidenceRecord.filter(sql: "key = ?", arguments: [key]).fetchOne(db)
        }
    }

    /// Records the uploaded bytes' size and hash, once: evidence bytes never change.
    func recordEvidenceBytes(id: String, size: Int, sha256: String, at now: Date) async throws -> Bool {
        try await database.write { db in
            guard var record = try EvidenceRecord.fetchOne(db, key: id), record.uploadedAt == nil else { return false }
            (record.size, record.sha256, record.uploadedAt) = (size, sha256, now)
            try record.update(db)
            try Self.appendCustody(id, action: "uploaded", actor: record.ownerID, at: now, in: db)
            return true
        }
    }

    func finalizeEvidence(id: String, kind: EvidenceKind, actor: String, at now: Date) async throws -> EvidenceRecord? {
        try await database.write { db in
            guard var record = try EvidenceRecord.fetchOne(db, key: id) else { return nil }
            if record.finalizedAt == nil {
                record.kind = kind
                record.finalizedAt = now
                try record.update(db)
                try Self.appendCustody(id, action: "finalized", actor: actor, at: now, in: db)
            }
            return record
        }
    }

    func recordCustody(_ id: String, action: String, actor: String, at now: Date) async throws {
        try await database.write { db in try Self.appendCustody(id, action: action, actor: actor, at: now, in: db) }
    }

    /// The custody log, and whether every entry's hash is right and chained to the one before.
    func custody(of id: String) async throws -> CustodyLog {
        let entries = try await database.read { db in
            try CustodyRecord.filter(sql: "evidence_id = ?", arguments: [id]).order(sql: "sequence").fetchAll(db)
        }
        var previous = CustodyRecord.genesis
        var valid = !entries.isEmpty
        for (index, entry) in entries.enumerated() {
            let expected = CustodyRecord.hash(
                previous: previous, evidence: id, sequence: entry.sequence, action: entry.action, actor: entry.actorID,
                at: entry.at)
            if entry.sequence != index + 1 || entry.previousHash != previous || entry.hash != expected { valid = false }
            previous = entry.hash
        }
        return CustodyLog(evidenceId: id, valid: valid, entries: entries.map(\.entry))
    }
}
