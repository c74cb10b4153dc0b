import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Phone verification: `POST /v1/me/phone/verification` sends a one-time code,
/// `POST /v1/me/phone/verification/check` checks it, `GET /v1/me/phone` shows the verified
/// number. Codes expire, each allows a few attempts, and a user can ask for only so many an
/// hour. A verified phone is a claim other services read from the session state.
struct PhoneController: Sendable {
    let store: PhoneStore
    let provider: any PhoneVerificationProvider
    let settings: PhoneSettings
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.post("/v1/me/phone/verification", use: start)
        routes.authenticated.post("/v1/me/phone/verification/check", use: check)
        routes.authenticated.get("/v1/me/phone", use: show)
    }

    @Sendable func start(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: PhoneVerificationStart.self, context: context)
        let phone = try Self.e164(body.phoneNumber)
        let now = clock.now()
        guard
            try await store.starts(userID: user.userID, since: now.addingTimeInterval(-3600))
                < settings.startsPerHour
        else {
            throw ServiceError(
                .rateLimitExceeded, "Too many codes requested; try again within the hour.",
                headers: [.retryAfter: "3600"])
        }
        let stored = try await provider.start(phone: phone, userID: user.userID, now: now, in: store)
        let expiresAt = now.addingTimeInterval(settings.codeTTL)
        try await store.saveChallenge(
            PhoneChallengeRecord(
                userId: user.userID, phoneNumber: phone, codeHash: stored, expiresAt: expiresAt, attempts: 0,
                createdAt: now))
        return try Response.json(PhoneVerificationStarted(phoneNumber: phone, expiresAt: expiresAt), status: .accepted)
    }

    @Sendable func check(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: PhoneVerificationCheck.self, context: context)
        let phone = try Self.e164(body.phoneNumber)
        guard (4...10).contains(body.code.utf8.count), body.code.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw ServiceError.validation("`code` must be 4 to 10 digits.")
        }
        let now = clock.now()
        guard
            let challenge = try await store.spendAttempt(
                userID: user.userID, phone: phone, maxAttempts: settings.maxAttempts, now: now),
            try await provider.check(phone: phone, code: body.code, userID: user.userID, stored: challenge.codeHash)
        else {
            throw ServiceError(.invalidCode, "The code is wrong, expired or used up: request a new one if needed.")
        }
        let record = try await store.verify(userID: user.userID, phone: phone, now: now)
        return try Response.json(VerifiedPhone(phoneNumber: record.phoneNumber, verifiedAt: record.verifiedAt))
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        guard let record = try await store.verifiedPhone(userID: user.userID) else {
            throw ServiceError.notFound("Verified phone")
        }
        return try Response.json(VerifiedPhone(phoneNumber: record.phoneNumber, verifiedAt: record.verifiedAt))
    }

    /// An E.164 number: `+`, a first digit 1–9, 8 to 15 digits in all. Spaces, dashes and
    /// brackets people type are dropped first.
    static func e164(_ raw: String) throws -> String {
        let cleaned = raw.filter { !" -().".contains($0) }
        let digits = cleaned.dropFirst()
        guard cleaned.first == "+", (8...15).contains(digits.count), digits.first != "0",
            digits.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        else {
            throw ServiceError.validation("`phoneNumber` must be an E.164 number such as +14155550123.")
        }
        return String(cleaned)
    }
}
