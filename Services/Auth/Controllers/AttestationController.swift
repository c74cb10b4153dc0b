import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Apple App Attest: `POST /v1/me/attestation/challenges` gives a one-time challenge,
/// `POST /v1/me/attestation/keys` registers a device's key with its attestation, `GET
/// /v1/me/attestation/keys` lists them, and `POST /v1/me/attestation/assertions` checks an
/// assertion, after which the session counts as attested (`feed.requireAttestation`). While
/// `auth.appAttest.appIds` is empty the routes answer 404.
struct AttestationController: Sendable {
    let store: AttestationStore
    let verifier: AppAttest?
    let challengeTTL: TimeInterval
    let clock: any WallClock
    let entropy: any Entropy

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.post("/v1/me/attestation/challenges", use: challenge)
        routes.authenticated.post("/v1/me/attestation/keys", use: register)
        routes.authenticated.get("/v1/me/attestation/keys", use: keys)
        routes.authenticated.post("/v1/me/attestation/assertions", use: assert)
    }

    @Sendable func challenge(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        _ = try enabled()
        let now = clock.now()
        let challenge = Base64URL.encode(entropy.bytes(32))
        let expiresAt = now.addingTimeInterval(challengeTTL)
        try await store.issue(
            AttestationChallengeRecord(challenge: challenge, sessionId: user.sessionID, expiresAt: expiresAt), now: now)
        return try Response.json(AttestationChallenge(challenge: challenge, expiresAt: expiresAt), status: .created)
    }

    /// 201 with the key. A key id registered already is a 409; an attestation that does not
    /// verify is a 422 (`ATTESTATION_INVALID`, or `ATTESTATION_APP_MISMATCH` for another app).
    @Sendable func register(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let verifier = try enabled()
        let body = try await request.decodeJSON(as: AttestationKeyRegistration.self, context: context, limit: 64 << 10)
        let object = try Self.base64(body.attestation, "attestation")
        try await take(body.challenge, user: user)
        let now = clock.now()
        let key = try await verifier.verifyAttestation(
            object, keyID: body.keyId, challenge: Data(body.challenge.utf8), at: now)
        guard
            let record = try await store.register(
                AppAttestKeyRecord(
                    keyId: key.keyID, userId: user.userID, sessionId: user.sessionID, appId: key.appID,
                    environment: verifier.environment.rawValue, publicKey: key.publicKey, receipt: key.receipt,
                    counter: 0, createdAt: now))
        else { throw ServiceError(.conflict, "This key is registered already; generate a new one to attest again.") }
        return try Response.json(record.summary, status: .created)
    }

    @Sendable func keys(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        _ = try enabled()
        let keys = try await store.keys(of: user.userID)
        return try Response.json(Page(items: keys.map(\.summary), nextCursor: nil))
    }

    /// The session is attested as of now. An unknown key (or another user's) is a 404, a bad
    /// signature 422 `ASSERTION_INVALID`, a counter not above the last one 409 `ASSERTION_REPLAYED`.
    @Sendable func assert(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let verifier = try enabled()
        let body = try await request.decodeJSON(as: AttestationAssertion.self, context: context, limit: 16 << 10)
        let object = try Self.base64(body.assertion, "assertion")
        guard let key = try await store.key(body.keyId, of: user.userID) else {
            throw ServiceError.notFound("Attestation key")
        }
        try await take(body.challenge, user: user)
        let assertion = try verifier.verifyAssertion(
            object, publicKey: key.publicKey, clientData: Data(body.challenge.utf8))
        switch try await store.accept(
            counter: assertion.counter, keyID: key.keyId, userID: user.userID, sessionID: user.sessionID,
            now: clock.now())
        {
        case .accepted(let at): return try Response.json(SessionAttestation(keyId: key.keyId, attestedAt: at))
        case .replayed:
            throw ServiceError(.assertionReplayed, "This assertion's counter was used already; make a new assertion.")
        case .unknownKey: throw ServiceError.notFound("Attestation key")
        }
    }

    private func enabled() throws -> AppAttest {
        guard let verifier else { throw ServiceError(.notFound, "App Attest is not turned on here.") }
        return verifier
    }

    private func take(_ challenge: String, user: AuthenticatedUser) async throws {
        guard challenge.utf8.count <= 128, try await store.take(challenge, sessionID: user.sessionID, now: clock.now())
        else {
            throw ServiceError(
                .attestationChallengeInvalid,
                "The challenge is unknown, expired or used: ask POST /v1/me/attestation/challenges for a new one.")
        }
    }

    private static func base64(_ text: String, _ field: String) throws -> Data {
        guard let data = Data(base64Encoded: text), !data.isEmpty else {
            throw ServiceError.validation("`\(field)` must be base64.")
        }
        return data
    }
}
