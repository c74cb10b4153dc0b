import Foundation

/// What a piece of evidence is.
public enum EvidenceKind: String, Codable, Sendable, CaseIterable {
    case video = "VIDEO"
    case audio = "AUDIO"
    case photo = "PHOTO"
    case nearby = "NEARBY"
    case text = "TEXT"
}

/// `POST /v1/evidence/presign`.
public struct EvidencePresignRequest: Codable, Sendable {
    public var incidentId: String
    public var contentType: String

    public init(incidentId: String, contentType: String) {
        self.incidentId = incidentId
        self.contentType = contentType
    }
}

/// Where to PUT the evidence bytes, and the key to finalize them with.
public struct EvidencePresigned: Codable, Sendable, Equatable {
    /// Path and query, relative to the gateway; PUT the bytes there with `headers`.
    public var uploadUrl: String
    public var key: String
    public var headers: [String: String]
    public var maxBytes: Int
    public var expiresAt: Date

    public init(uploadUrl: String, key: String, headers: [String: String], maxBytes: Int, expiresAt: Date) {
        self.uploadUrl = uploadUrl
        self.key = key
        self.headers = headers
        self.maxBytes = maxBytes
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/evidence/finalize`: the client's own size and SHA-256 of what it uploaded.
public struct EvidenceFinalizeRequest: Codable, Sendable {
    public var incidentId: String
    public var kind: EvidenceKind
    public var key: String
    public var size: Int
    /// Hex (as expo-crypto gives it) or base64.
    public var sha256: String

    public init(incidentId: String, kind: EvidenceKind, key: String, size: Int, sha256: String) {
        self.incidentId = incidentId
        self.kind = kind
        self.key = key
        self.size = size
        self.sha256 = sha256
    }
}

/// A piece of evidence. Immutable once finalized.
public struct Evidence: Codable, Sendable, Equatable {
    public var id: String
    public var incidentId: String
    public var key: String
    public var kind: EvidenceKind?
    public var contentType: String
    public var size: Int?
    public var sha256: String?
    public var createdAt: Date
    public var finalizedAt: Date?
    /// The duress incident (auth's, as on the tenant's alerts and incidents) the session that
    /// collected it was under; shown to its readers, absent when unknown.
    public var duressIncidentId: String?

    enum CodingKeys: String, CodingKey {
        case id, incidentId, key, kind, contentType, size, sha256, createdAt, finalizedAt, duressIncidentId
    }

    public init(
        id: String, incidentId: String, key: String, kind: EvidenceKind?, contentType: String, size: Int?,
        sha256: String?, createdAt: Date, finalizedAt: Date?, duressIncidentId: String? = nil
    ) {
        self.duressIncidentId = duressIncidentId
        self.id = id
        self.incidentId = incidentId
        self.key = key
        self.kind = kind
        self.contentType = contentType
        self.size = size
        self.sha256 = sha256
        self.createdAt = createdAt
        self.finalizedAt = finalizedAt
    }
}

/// One entry of an evidence's custody log. Each entry's hash covers the previous entry's hash,
/// so removing, reordering or editing an entry breaks every hash after it.
public struct CustodyEntry: Codable, Sendable, Equatable {
    public var sequence: Int
    /// `created`, `uploaded`, `finalized`, `viewed`, `exported`.
    public var action: String
    public var actorId: String
    public var at: Date
    public var previousHash: String
    public var hash: String

    public init(sequence: Int, action: String, actorId: String, at: Date, previousHash: String, hash: String) {
        self.sequence = sequence
        self.action = action
        self.actorId = actorId
        self.at = at
        self.previousHash = previousHash
        self.hash = hash
    }
}

/// `GET /v1/evidence/{id}/custody`: the log and whether its chain verifies.
public struct CustodyLog: Codable, Sendable, Equatable {
    public var evidenceId: String
    public var valid: Bool
    public var entries: [CustodyEntry]

    public init(evidenceId: String, valid: Bool, entries: [CustodyEntry]) {
        self.evidenceId = evidenceId
        self.valid = valid
        self.entries = entries
    }
}
