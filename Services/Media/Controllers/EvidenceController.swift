import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Evidence: `POST /v1/evidence/presign` → a presigned PUT URL and a key;
/// `PUT /v1/evidence/presigned/{id}` stores the bytes once; `POST /v1/evidence/finalize`
/// checks the client's size and SHA-256 against the stored bytes and answers the evidence.
/// Evidence never changes afterwards. Every step, and every view and export, is appended to a
/// hash-chained custody log (`GET /v1/evidence/{id}/custody` verifies it). Only the tenant's
/// responders and admins (and deployment admins) can read evidence; to anyone else it does
/// not exist. They find it from a duress alert: `GET /v1/evidence?tenantId=&duressIncidentId=`
/// lists what the sessions of that incident collected.
struct EvidenceController: Sendable {
    /// The store, intake, presigner, settings, clock and randomness both presigning controllers use.
    let shared: PresignedObjects

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/evidence", use: list)
        routes.authenticated.post("/v1/evidence/presign", use: presign)
        routes.authenticated.post("/v1/evidence/finalize", use: finalize)
        // Transrify's own spelling: its requirement 20 posts to `/evidence/finalize`, no `/v1`.
        routes.authenticated.post("/evidence/finalize", use: finalize)
        routes.authenticated.get("/v1/evidence/:id", use: show)
        routes.authenticated.get("/v1/evidence/:id/content", use: content)
        routes.authenticated.get("/v1/evidence/:id/custody", use: custody)
        routes.open.put("/v1/evidence/presigned/:id", use: put)
    }

    @Sendable func presign(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        guard let tenant = user.tenantID else {
            throw ServiceError(.forbidden, "Evidence is collected in a tenant customer's session.")
        }
        let body = try await request.decodeJSON(as: EvidencePresignRequest.self, context: context)
        try EvidenceRules.validateIncident(body.incidentId)
        let type = try EvidenceRules.contentType(body.contentType)
        let now = shared.clock.now()
        let id = shared.entropy.uuid().uuidString.lowercased()
        let record = EvidenceRecord(
            id: id, tenantId: tenant, ownerId: user.userID, incidentId: body.incidentId,
            key: "evidence/\(body.incidentId)/\(id)", kind: nil, contentType: type,
            maxBytes: shared.settings.maxVideoBytes,
            size: nil, sha256: nil, createdAt: now, uploadedAt: nil, finalizedAt: nil, sessionId: user.sessionID)
        try await shared.store.createEvidence(record)
        let expires = Int(now.timeIntervalSince1970) + shared.settings.presignUploadSeconds
        return try Response.json(
            EvidencePresigned(
                uploadUrl: shared.presigner.evidenceURL(
                    id: id, type: type, maxBytes: record.maxBytes, expires: expires),
                key: record.key,
                headers: ["Content-Type": type], maxBytes: record.maxBytes,
                expiresAt: Date(timeIntervalSince1970: TimeInterval(expires))),
            status: .created)
    }

    /// Stores the bytes of an evidence once; the URL is the credential.
    @Sendable func put(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let id = try ObjectID.path(context.parameters.require("id"), "Evidence")
        guard let record = try await shared.store.evidence(id: id) else { throw Presigner.refused }
        let query = request.uri.queryParameters
        _ = try shared.presigner.check(expires: query.get("exp"), signature: query.get("sig"), now: shared.clock.now())
        {
            Presigner.evidenceParts(id: id, type: record.contentType, maxBytes: record.maxBytes, expires: $0)
        }
        guard request.headers[.contentType]?.lowercased() == record.contentType else {
            throw ServiceError(.forbidden, "This URL is for `\(record.contentType)`; send that `Content-Type`.")
        }
        guard record.uploadedAt == nil else { throw EvidenceRules.immutable }
        // Photos and videos must be what they claim; other kinds (audio, text) are kept as sent.
        let claimed = ContentSniffer.claimedType(record.contentType)
        let staged: MediaIntake.Staged
        do {
            staged = try await shared.intake.stage(
                request.body, limit: record.maxBytes, tooLarge: MediaIntake.tooLarge(record.maxBytes),
                claimed: claimed,
                accepted: claimed.map(ContentSniffer.uploadTypes.contains) == true ? ContentSniffer.uploadTypes : nil)
        } catch let rejection as MediaRejection {
            throw rejection.error()
        }
        try await shared.intake.blobs.store(staged.file, sha256: staged.sha256)
        guard
            try await shared.store.recordEvidenceBytes(
                id: id, size: staged.byteCount, sha256: staged.sha256, at: shared.clock.now())
        else { throw EvidenceRules.immutable }
        return Response(status: .noContent)
    }

    @Sendable func finalize(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: EvidenceFinalizeRequest.self, context: context)
        guard let record = try await shared.store.evidence(key: body.key), record.ownerId == user.userID,
            record.incidentId == body.incidentId
        else { throw ServiceError.notFound("Evidence") }
        guard let size = record.size, let sha256 = record.sha256 else {
            throw ServiceError(.conflict, "Nothing was uploaded to this key yet.")
        }
        guard let declared = DeclaredDigest.sha256(body.sha256) else {
            throw ServiceError.validation("`sha256` must be a SHA-256 in hex or base64.")
        }
        guard body.size == size, declared == sha256 else {
            throw ServiceError.validation(
                "`size` and `sha256` do not match the stored bytes (\(size) bytes, SHA-256 \(sha256)).")
        }
        if let kind = record.kind, kind != body.kind { throw EvidenceRules.immutable }
        guard
            let finalized = try await shared.store.finalizeEvidence(
                id: record.id, kind: body.kind, actor: user.userID, at: shared.clock.now())
        else { throw ServiceError.notFound("Evidence") }
        return try Response.json(finalized.evidence)
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (record, user) = try await readable(context)
        try await shared.store.recordCustody(record.id, action: "viewed", actor: user.userID, at: shared.clock.now())
        return try Response.json(record.evidence(duressIncident: try await shared.store.duressIncident(of: record)))
    }

    /// `GET /v1/evidence?tenantId=&duressIncidentId=`: the evidence an incident's sessions
    /// collected (auth's incident id, as `GET /v1/alerts/duress` and the tenant's incidents show
    /// it), newest first, paged, for the tenant's responders and admins; anyone else gets a 404,
    /// as for a tenant that does not exist.
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let query = request.uri.queryParameters
        guard let tenantID = query.get("tenantId"), user.isStaff(of: tenantID) else {
            throw ServiceError.notFound("Tenant")
        }
        guard let incident = query.get("duressIncidentId"), let incidentID = ObjectID.canonical(incident) else {
            throw ServiceError.validation("`duressIncidentId` must be the id of a duress incident.")
        }
        let page = try PageRequest<TimePosition>(request: request)
        let records = try await shared.store.evidence(
            ofIncident: incidentID, tenantID: tenantID, after: page.position, limit: page.limit,
            reader: user.userID, now: shared.clock.now())
        return try Response.json(
            Page(records, limit: page.limit, item: { $0.evidence(duressIncident: incidentID) }) {
                TimePosition(createdAt: $0.createdAt, id: $0.id)
            })
    }

    @Sendable func content(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (record, user) = try await readable(context)
        guard let size = record.size, let sha256 = record.sha256, record.finalizedAt != nil else {
            throw ServiceError(.conflict, "The evidence is not finalized yet.")
        }
        try await shared.store.recordCustody(record.id, action: "exported", actor: user.userID, at: shared.clock.now())
        return try await BlobResponse.make(
            request, sha256: sha256, contentType: record.contentType, byteSize: size, blobs: shared.intake.blobs,
            cacheControl: "private, no-store")
    }

    @Sendable func custody(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (record, _) = try await readable(context)
        return try Response.json(try await shared.store.custody(of: record.id))
    }

    /// Evidence the caller may read (``EvidenceRules/isReadable(_:by:)``); to anyone else it
    /// does not exist.
    private func readable(_ context: ServiceRequestContext) async throws -> (EvidenceRecord, AuthenticatedUser) {
        let user = try context.requireMember()
        let id = try ObjectID.path(context.parameters.require("id"), "Evidence")
        guard let record = try await shared.store.evidence(id: id), EvidenceRules.isReadable(record, by: user) else {
            throw ServiceError.notFound("Evidence")
        }
        return (record, user)
    }
}
