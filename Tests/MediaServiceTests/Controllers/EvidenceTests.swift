import Crypto
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import MediaService

/// Evidence: presign, PUT once, finalize against size and SHA-256, read only by
/// the tenant's responders, every step in a hash-chained custody log.
@Suite struct EvidenceTests {
    static let customer = "00000000-0000-4000-8000-0000000000c1"
    static let responder = "00000000-0000-4000-8000-0000000000e1"
    static let stranger = "00000000-0000-4000-8000-0000000000f1"
    static let tenant = "7e7a0000-0000-4000-8000-000000000001"
    static let otherTenant = "7e7a0000-0000-4000-8000-000000000002"

    /// Auth's answers: each user's session, by session id = user id.
    static let sessions = Lookup<SessionState> { id in
        switch id {
        case customer: SessionState(sessionId: id, userId: id, limited: true, roles: [], tenantId: tenant)
        case responder:
            SessionState(
                sessionId: id, userId: id, limited: false, roles: [RoleGrant(role: .tenantResponder, tenantId: tenant)])
        case stranger:
            SessionState(
                sessionId: id, userId: id, limited: false,
                roles: [RoleGrant(role: .tenantResponder, tenantId: otherTenant)])
        default: nil
        }
    }

    @Test func evidenceIsUploadedOnceFinalizedByItsHashAndReadOnlyByResponders() async throws {
        let harness = try ServiceHarness(.media, sessions: Self.sessions)
        let parts = try await MediaService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let customer = try await harness.token(for: Self.customer, session: Self.customer)
            let responder = try await harness.token(for: Self.responder, session: Self.responder)
            let stranger = try await harness.token(for: Self.stranger, session: Self.stranger)

            // Only a tenant customer's session collects evidence.
            #expect(
                try await client.post(
                    "/v1/evidence/presign", EvidencePresignRequest(incidentId: "inc-1", contentType: "audio/mp4"),
                    token: responder
                ).status == .forbidden)
            for bad in [
                EvidencePresignRequest(incidentId: "../etc", contentType: "audio/mp4"),
                EvidencePresignRequest(incidentId: "inc-1", contentType: "audio"),
            ] {
                #expect(try await client.post("/v1/evidence/presign", bad, token: customer).status == .badRequest)
            }
            let presigned = try await client.post(
                "/v1/evidence/presign", EvidencePresignRequest(incidentId: "inc-1", contentType: "audio/mp4"),
                token: customer
            ).json(EvidencePresigned.self)
            #expect(presigned.key.hasPrefix("evidence/inc-1/"))
            let evidenceID = String(presigned.key.split(separator: "/").last!)

            let audio = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            func put(_ url: String, _ type: String = "audio/mp4") async throws -> TestResponse {
                try await client.execute(
                    uri: url, method: .put, headers: [.contentType: type], body: ByteBuffer(bytes: audio))
            }
            #expect(try await put(presigned.uploadUrl + "x").status == .forbidden)
            #expect(try await put(presigned.uploadUrl, "video/mp4").status == .forbidden)
            let finalizeEarly = try await client.post(
                "/v1/evidence/finalize",
                EvidenceFinalizeRequest(incidentId: "inc-1", kind: .audio, key: presigned.key, size: 1, sha256: "x"),
                token: customer)
            #expect(finalizeEarly.status == .conflict)
            #expect(try await put(presigned.uploadUrl).status == .noContent)
            #expect(try await put(presigned.uploadUrl).status == .conflict, "evidence is immutable")

            let sha = Hex.encode(SHA256.hash(data: audio))
            let wrong = try await client.post(
                "/v1/evidence/finalize",
                EvidenceFinalizeRequest(
                    incidentId: "inc-1", kind: .audio, key: presigned.key, size: audio.count - 1, sha256: sha),
                token: customer)
            #expect(wrong.status == .badRequest)
            let otherIncident = try await client.post(
                "/v1/evidence/finalize",
                EvidenceFinalizeRequest(
                    incidentId: "inc-2", kind: .audio, key: presigned.key, size: audio.count, sha256: sha),
                token: customer)
            #expect(otherIncident.status == .notFound)
            let finalized = try await client.post(
                "/v1/evidence/finalize",
                EvidenceFinalizeRequest(
                    incidentId: "inc-1", kind: .audio, key: presigned.key, size: audio.count,
                    sha256: Data(SHA256.hash(data: audio)).base64EncodedString()),
                token: customer)
            #expect(finalized.status == .ok)
            #expect(try finalized.json(Evidence.self).id == evidenceID)

            // The customer (maybe not alone), and another tenant's responder, see nothing.
            for token in [customer, stranger] {
                #expect(try await client.get("/v1/evidence/\(evidenceID)", token: token).status == .notFound)
            }
            let shown = try await client.get("/v1/evidence/\(evidenceID)", token: responder).json(Evidence.self)
            #expect(shown.sha256 == sha)
            #expect(shown.kind == .audio)
            let exported = try await client.get("/v1/evidence/\(evidenceID)/content", token: responder)
            #expect(Data(exported.body.readableBytesView) == audio)

            let log = try await client.get("/v1/evidence/\(evidenceID)/custody", token: responder).json(CustodyLog.self)
            #expect(log.valid)
            #expect(log.entries.map(\.action) == ["created", "uploaded", "finalized", "viewed", "exported"])
            #expect(
                log.entries.map(\.actorId) == [
                    Self.customer, Self.customer, Self.customer, Self.responder, Self.responder,
                ])

            // The log is append-only, and any edit made behind its back breaks the chain.
            let database = try harness.database()
            await #expect(throws: DatabaseError.self) {
                try await database.write { db in try db.execute(sql: "DELETE FROM custody_entry") }
            }
            try await database.write { db in
                try db.execute(sql: "DROP TRIGGER custody_entry_no_update")
                try db.execute(sql: "UPDATE custody_entry SET actor_id = 'someone' WHERE sequence = 4")
            }
            let tampered = try await client.get("/v1/evidence/\(evidenceID)/custody", token: responder).json(
                CustodyLog.self)
            #expect(!tampered.valid)

            // Evidence declared a photo must be one; nothing is stored otherwise.
            let photo = try await client.post(
                "/v1/evidence/presign", EvidencePresignRequest(incidentId: "inc-1", contentType: "image/jpeg"),
                token: customer
            ).json(EvidencePresigned.self)
            let lie = try await client.execute(
                uri: photo.uploadUrl, method: .put, headers: [.contentType: "image/jpeg"],
                body: ByteBuffer(bytes: TestImages.png()))
            #expect(lie.status == .unsupportedMediaType)
            let real = try await client.execute(
                uri: photo.uploadUrl, method: .put, headers: [.contentType: "image/jpeg"],
                body: ByteBuffer(bytes: TestImages.jpeg(seed: 30)))
            #expect(real.status == .noContent)
        }
    }
}
