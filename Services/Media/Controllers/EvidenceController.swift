import Contracts
import Foundation
import Hummingbird
import ServiceKit

/// Evidence (Transrify): `POST /v1/evidence/presign` → a presigned PUT URL and a key;
/// `PUT /v1/evidence/presigned/{id}` stores the bytes once; `POST /v1/evidence/finalize`
/// checks the client's size and SHA-256 against the stored bytes and answers the evidence.
/// Evidence never changes afterwards. Every step, and every view and export, is appended to a
/// hash-chained custody log (`GET /v1/evidence/{id}/custody` verifies it). Only the tenant's
/// responders and admins (and deployment admins) can read evidence; to anyone else it does
/// not exist.
struct EvidenceController: Sendable {
    let store: MediaStore
    let blobs: BlobStore
    let presigner: Presigner
    let settings: MediaSettings
    let clock: any WallClock
    let entropy: any Entropy

    static let presignedPath = "/v1/evidence/presigned"

    func addRoutes(authenticated: RouterGroup<ServiceRequestContext>, public router: Router<ServiceRequestContext>) {
        authenticated.post("/v1/evidence/presign", use: presign)
        authenticated.post("/v1/evidence/finalize", use: finalize)
        authenticated.get("/v1/evidence/:id", use: show)
        authenticated.get("/v1/evidence/:id/content", use: content)
        authenticated.get("/v1/evidence/:id/custody", use: custody)
        router.put("\(Self.presignedPath)/:id", use: put)
    }

    static func parts(id: String, type: String, maxBytes: Int, expires: Int) -> [String] {
        ["PUT", "\(presignedPath)/\(id)", type, String(maxBytes), String(expires)]
    }

    @Sendable func presign(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        guard let tenant = user.tenantID else {
            throw ServiceError(.forbidden, "Evidence is collected in a tenant customer's session.")
        }
        let body = try await request.decodeJSON(as: EvidencePresignRequest.self, context: context)
        try Self.validateIncident(body.incidentId)
        let type = body.contentType.lowercased()
        let pieces = type.split(separator: "/")
        guard pieces.count == 2, type.utf8.count <= 100, !type.contains(where: { $0.isWhitespace || $0 == ";" }) else {
            throw ServiceError.validation("`contentType` must be a media type such as video/mp4.")
        }
        let now = clock.now()
        let id = entropy.uuid().uuidString.lowercased()
        let record = EvidenceRecord(
            id: id, tenantID: tenant, ownerID: user.userID, incidentID: body.incidentId,
            key: "evidence/\(body.incidentId)/\(id)", kind: nil, contentType: type, maxBytes: settings.maxVideoBytes,
            size: nil, sha256: nil, createdAt: now, uploadedAt: nil, finalizedAt: nil)
        try await store.createEvidence(record)
        let expires = Int(now.timeIntervalSince1970) + settings.presignUploadSeconds
        let signature = presigner.signature(Self.parts(id: id, type: type, maxBytes: record.maxBytes, expires: expires))
        return try Response.json(
            EvidencePresigned(
                uploadUrl: "\(Self.presignedPath)/\(id)?exp=\(expires)&sig=\(signature)", key: record.key,
                headers: ["Content-Type": type], maxBytes: record.maxBytes,
                expiresAt: Date(timeIntervalSince1970: TimeInterval(expires))),
            status: .created)
    }

    /// Stores the bytes of an evidence once; the URL is the credential.
    @Sendable func put(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let id = try ObjectID.path(context.parameters.require("id"), "Evidence")
        guard let record = try await store.evidence(id: id),
            let expires = request.uri.queryParameters.get("exp").flatMap({ Int($0) }),
            let signature = request.uri.queryParameters.get("sig"),
            presigner.isValid(
                signature,
                for: Self.parts(id: id, type: record.contentType, maxBytes: record.maxBytes, expires: expires))
        else { throw PresignController.refused }
        guard expires > Int(clock.now().timeIntervalSince1970) else { throw PresignController.expired }
        guard request.headers[.contentType]?.lowercased() == record.contentType else {
            throw ServiceError(.forbidden, "This URL is for `\(record.contentType)`; send that `Content-Type`.")
        }
        guard record.uploadedAt == nil else { throw Self.immutable }
        let writer = try blobs.makeWriter()
        let sha256: String
        do {
            for try await buffer in request.body {
                try await writer.append(buffer)
                if writer.byteCount > record.maxBytes { throw MediaController.tooLarge(record.maxBytes) }
            }
            guard writer.byteCount > 0 else { throw ServiceError.validation("The upload is empty.") }
            // Photos and videos must be what they claim; other kinds (audio, text) are kept as sent.
            if let claimed = ContentSniffer.claimedType(record.contentType),
                ContentSniffer.uploadTypes.contains(claimed)
            {
                _ = try MediaController.check(writer.prefix, claimed: claimed, accepted: ContentSniffer.uploadTypes)
            }
            sha256 = try await writer.finish()
        } catch {
            writer.discard()
            throw error
        }
        try await blobs.store(writer.temporary, sha256: sha256)
        guard try await store.recordEvidenceBytes(id: id, size: writer.byteCount, sha256: sha256, at: clock.now())
        else {
            throw Self.immutable
        }
        return Response(status: .noContent)
    }

    @Sendable func finalize(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: EvidenceFinalizeRequest.self, context: context)
        guard let record = try await store.evidence(key: body.key), record.ownerID == user.userID,
            record.incidentID == body.incidentId
        else { throw ServiceError.notFound("Evidence") }
        guard let size = record.size, let sha256 = record.sha256 else {
            throw ServiceError(.conflict, "Nothing was uploaded to this key yet.")
        }
        let declared: String? =
            if body.sha256.count == 64, let bytes = Hex.decode(body.sha256) {
                Hex.encode(bytes)
            } else {
                Data(base64Encoded: body.sha256).flatMap { $0.count == 32 ? Hex.encode($0) : nil }
            }
        guard let declared else { throw ServiceError.validation("`sha256` must be a SHA-256 in hex or base64.") }
        guard body.size == size, declared == sha256 else {
            throw ServiceError.validation(
                "`size` and `sha256` do not match the stored bytes (\(size) bytes, SHA-256 \(sha256)).")
        }
        if let kind = record.kind, kind != body.kind {
            throw Self.immutable
        }
        guard
            let finalized = try await store.finalizeEvidence(
                id: record.id, kind: body.kind, actor: user.userID, at: clock.now())
        else { throw ServiceError.notFound("Evidence") }
        return try Response.json(finalized.evidence)
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (record, user) = try await readable(context)
        try await store.recordCustody(record.id, action: "viewed", actor: user.userID, at: clock.now())
        return try Response.json(record.evidence)
    }

    @Sendable func content(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (record, user) = try await readable(context)
        guard let size = record.size, let sha256 = record.sha256, record.finalizedAt != nil else {
            throw ServiceError(.conflict, "The evidence is not finalized yet.")
        }
        try await store.recordCustody(record.id, action: "exported", actor: user.userID, at: clock.now())
        return try await BlobResponse.make(
            request, sha256: sha256, contentType: record.contentType, byteSize: size, blobs: blobs,
            cacheControl: "private, no-store")
    }

    @Sendable func custody(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (record, _) = try await readable(context)
        return try Response.json(try await store.custody(of: record.id))
    }

    /// Evidence the caller may read: a responder or admin of its tenant, or a deployment admin.
    private func readable(_ context: ServiceRequestContext) async throws -> (EvidenceRecord, AuthenticatedUser) {
        let user = try context.requireMember()
        let id = try ObjectID.path(context.parameters.require("id"), "Evidence")
        guard let record = try await store.evidence(id: id),
            user.has(.admin) || user.has(.tenantResponder, tenantID: record.tenantID)
                || user.has(.tenantAdmin, tenantID: record.tenantID)
        else { throw ServiceError.notFound("Evidence") }
        return (record, user)
    }

    static func validateIncident(_ id: String) throws {
        guard (1...100).contains(id.utf8.count),
            id.utf8.allSatisfy({
                $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                    || (0x61...0x7A).contains($0)
            })
        else { throw ServiceError.validation("`incidentId` must be 1 to 100 letters, digits, `-` or `_`.") }
    }

    static let immutable = ServiceError(.conflict, "Evidence cannot change once uploaded.")
}
