import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Evidence and its custody log.
extension MediaStore {
    /// Appends a custody entry chained to the last one, in the caller's transaction.
    static func appendCustody(_ evidenceId: String, action: String, actor: String, at now: Date, in db: Database) throws
    {
        let last = try CustodyRecord.filter(CustodyRecord.Columns.evidenceId == evidenceId)
            .order(CustodyRecord.Columns.sequence.desc).fetchOne(db)
        let sequence = (last?.sequence ?? 0) + 1
        let previous = last?.hash ?? CustodyRecord.genesis
        try CustodyRecord(
            evidenceId: evidenceId, sequence: sequence, action: action, actorId: actor, at: now, previousHash: previous,
            hash: CustodyRecord.hash(
                previous: previous, evidence: evidenceId, sequence: sequence, action: action, actor: actor, at: now)
        ).insert(db)
    }

    func createEvidence(_ record: EvidenceRecord) async throws {
        try await database.tracedWrite { db in
            try record.insert(db)
            try Self.appendCustody(record.id, action: "created", actor: record.ownerId, at: record.createdAt, in: db)
        }
    }

    func evidence(id: String) async throws -> EvidenceRecord? {
        try await database.tracedRead { db in try EvidenceRecord.fetchOne(db, key: id) }
    }

    func evidence(key: String) async throws -> EvidenceRecord? {
        try await database.tracedRead { db in
            try EvidenceRecord.filter(EvidenceRecord.Columns.key == key).fetchOne(db)
        }
    }

    /// Records the uploaded bytes' size and hash, once: evidence bytes never change.
    func recordEvidenceBytes(id: String, size: Int, sha256: String, at now: Date) async throws -> Bool {
        try await database.tracedWrite { db in
            guard var record = try EvidenceRecord.fetchOne(db, key: id), record.uploadedAt == nil else { return false }
            (record.size, record.sha256, record.uploadedAt) = (size, sha256, now)
            try record.update(db)
            try Self.appendCustody(id, action: "uploaded", actor: record.ownerId, at: now, in: db)
            return true
        }
    }

    func finalizeEvidence(id: String, kind: EvidenceKind, actor: String, at now: Date) async throws -> EvidenceRecord? {
        try await database.tracedWrite { db in
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

    /// `duress.raised` → the session is remembered under its incident, so the evidence it
    /// collects is listed there. Applied once per event.
    static func duressRaised(_ envelope: EventEnvelope<DuressRaised>, in db: Database) throws {
        let event = envelope.payload
        try IncidentSessionRecord(sessionId: event.sessionId, incidentId: event.incidentId, tenantId: event.tenantId)
            .insert(db, onConflict: .ignore)
    }

    /// The duress incident `record`'s session was under, if auth has said so.
    func duressIncident(of record: EvidenceRecord) async throws -> String? {
        guard let session = record.sessionId else { return nil }
        return try await database.tracedRead { db in try IncidentSessionRecord.fetchOne(db, key: session)?.incidentId }
    }

    /// `GET /v1/evidence?tenantId=&duressIncidentId=`: a page (`limit`, and one more to tell
    /// whether another page follows) of the evidence collected in the sessions of a tenant's
    /// duress incident, newest first; each piece shown is written to its custody log as
    /// `viewed` by `reader`.
    func evidence(
        ofIncident incident: String, tenantID: String, after position: TimePosition?, limit: Int, reader: String,
        now: Date
    ) async throws -> [EvidenceRecord] {
        try await database.tracedWrite { db in
            let sessions = IncidentSessionRecord.filter(
                Column("tenant_id") == tenantID && Column("incident_id") == incident
            )
            .select(Column("session_id"))
            let records = try EvidenceRecord.filter(Column("tenant_id") == tenantID)
                .filter(sessions.contains(EvidenceRecord.Columns.sessionId))
                .newestFirst(after: position, limit: limit + 1, timeColumn: "created_at").fetchAll(db)
            for record in records.prefix(limit) {
                try Self.appendCustody(record.id, action: "viewed", actor: reader, at: now, in: db)
            }
            return records
        }
    }

    func recordCustody(_ id: String, action: String, actor: String, at now: Date) async throws {
        try await database.tracedWrite { db in try Self.appendCustody(id, action: action, actor: actor, at: now, in: db)
        }
    }

    /// The custody log, and whether every entry's hash is right and chained to the one before.
    func custody(of id: String) async throws -> CustodyLog {
        let entries = try await database.tracedRead { db in
            try CustodyRecord.filter(CustodyRecord.Columns.evidenceId == id).order(CustodyRecord.Columns.sequence)
                .fetchAll(db)
        }
        var previous = CustodyRecord.genesis
        var valid = !entries.isEmpty
        for (index, entry) in entries.enumerated() {
            let expected = CustodyRecord.hash(
                previous: previous, evidence: id, sequence: entry.sequence, action: entry.action, actor: entry.actorId,
                at: entry.at)
            if entry.sequence != index + 1 || entry.previousHash != previous || entry.hash != expected { valid = false }
            previous = entry.hash
        }
        return CustodyLog(evidenceId: id, valid: valid, entries: entries.map(\.entry))
    }
}
