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
    /// The customer's second sign-in under the same duress incident, and another customer
    /// of the tenant who is under none.
    static let customerAgain = "00000000-0000-4000-8000-0000000001c1"
    static let colleague = "00000000-0000-4000-8000-0000000000c2"
    static let incident = "1c1d0000-0000-4000-8000-000000000001"
    static let tenant = "7e7a0000-0000-4000-8000-000000000001"
    static let otherTenant = "7e7a0000-0000-4000-8000-000000000002"

    /// Auth's answers: each user's session, by session id = user id.
    static let sessions = Lookup<SessionState> { id in
        switch id {
        case customer, customerAgain:
            SessionState(sessionId: id, userId: customer, limited: true, roles: [], tenantId: tenant)
        case colleague: SessionState(sessionId: id, userId: id, limited: false, roles: [], tenantId: tenant)
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
            // At the path Transrify's requirement 20 names, without `/v1`.
            let finalized = try await client.post(
                "/evidence/finalize",
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

    /// Transrify, requirement 19: evidence reaches those who act on it. The app names its own
    /// incident; the tenant's responders find the evidence under auth's incident, the one
    /// they see on the alert, whichever of the sign-ins collected it.
    @Test func respondersListAnIncidentsEvidenceFromEverySessionOfIt() async throws {
        let harness = try ServiceHarness(.media, sessions: Self.sessions)
        let parts = try await MediaService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            var tokens: [String: String] = [:]
            for session in [Self.customer, Self.customerAgain, Self.colleague, Self.responder, Self.stranger] {
                tokens[session] = try await harness.token(
                    for: session == Self.customerAgain ? Self.customer : session, session: session)
            }
            func collect(_ session: String, _ appIncident: String) async throws -> String {
                let presigned = try await client.post(
                    "/v1/evidence/presign",
                    EvidencePresignRequest(incidentId: appIncident, contentType: "text/plain"), token: tokens[session]!
                ).json(EvidencePresigned.self)
                return String(presigned.key.split(separator: "/").last!)
            }
            // Collected before auth's events reach media, under ids the app made up.
            let first = try await collect(Self.customer, "app-a")
            harness.clock.advance(by: 1)
            let second = try await collect(Self.customerAgain, "app-b")
            let unrelated = try await collect(Self.colleague, "app-a")
            for session in [Self.customer, Self.customerAgain] {
                let envelope = EventEnvelope(
                    id: UUID(), type: DuressRaised.eventType, source: .auth, occurredAt: harness.clock.now(),
                    payload: DuressRaised(
                        incidentId: Self.incident, tenantId: Self.tenant, customerRef: "C-1", userId: Self.customer,
                        sessionId: session, location: nil, device: nil, raisedAt: harness.clock.now()))
                try await harness.database().write { db in try MediaStore.duressRaised(envelope, in: db) }
            }

            let path = "/v1/evidence?tenantId=\(Self.tenant)&duressIncidentId=\(Self.incident)"
            let page = try await client.get(path + "&limit=1", token: tokens[Self.responder]!)
            #expect(page.status == .ok, "\(String(buffer: page.body))")
            let one = try page.json(Page<Evidence>.self)
            #expect(one.items.map(\.id) == [second])
            let cursor = try #require(one.nextCursor)
            let two = try await client.get(path + "&limit=1&cursor=\(cursor)", token: tokens[Self.responder]!)
                .json(Page<Evidence>.self)
            #expect(two.items.map(\.id) == [first])
            #expect(two.nextCursor == nil)
            #expect((one.items + two.items).allSatisfy { $0.duressIncidentId == Self.incident })
            #expect((one.items + two.items).map(\.incidentId) == ["app-b", "app-a"])
            let shown = try await client.get("/v1/evidence/\(first)", token: tokens[Self.responder]!).json(
                Evidence.self)
            #expect(shown.duressIncidentId == Self.incident)
            let loose = try await client.get("/v1/evidence/\(unrelated)", token: tokens[Self.responder]!)
                .json(Evidence.self)
            #expect(loose.duressIncidentId == nil)
            // Being listed is a view, in the custody log.
            let log = try await client.get("/v1/evidence/\(second)/custody", token: tokens[Self.responder]!)
                .json(CustodyLog.self)
            #expect(log.valid && log.entries.map(\.action) == ["created", "viewed"])

            // The customer, a colleague and another tenant's responder see no such list; an id
            // that is not one is a 400.
            for session in [Self.customer, Self.colleague, Self.stranger] {
                #expect(try await client.get(path, token: tokens[session]!).status == .notFound)
            }
            let bad = try await client.get(
                "/v1/evidence?tenantId=\(Self.tenant)&duressIncidentId=app-a", token: tokens[Self.responder]!)
            #expect(bad.status == .badRequest)
        }
    }
}
