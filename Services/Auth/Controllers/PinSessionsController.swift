import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Transrify's sign-in by tenant key, customer reference and PIN, with its silent duress PIN:
/// `POST /v1/sessions/login` and `GET /v1/sessions/verify`.
///
/// A NORMAL and a DURESS answer are the same in status, headers, field order and size; only
/// the verdict string differs, and the session's `limited` flag lives only on the server.
/// Both PINs are always checked, and an unknown customer costs the same two checks, so the
/// time taken does not tell which PIN matched or whether the customer exists. Nothing logged
/// here names the verdict.
struct PinSessionsController: Sendable {
    let tenants: TenantStore
    let pinSignIns: PinSignInStore
    let sessions: SessionStore
    let pins: PinHasher
    let issuer: TokenIssuer
    let throttle: PinThrottle.Policy
    let clock: any WallClock
    let entropy: any Entropy

    static let proceed = "PROCEED"
    static let retry = "RETRY"

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.post("/v1/sessions/login", use: login)
        routes.open.get("/v1/sessions/verify", use: verify)
    }

    @Sendable func login(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: PinLoginRequest.self, context: context)
        let tenant = try await TenantKeys.tenant(presenting: body.tenantKey, in: tenants)
        try PinRules.validateReference(body.customerRef)
        try PinRules.validatePin(body.pin, field: "pin")
        try Credentials.validate(body.device)
        try PinRules.validate(body.location)

        let now = clock.now()
        let address = try await ClientAddress.of(request, context: context) ?? "unknown"
        let customerKey = PinThrottle.customerKey(tenantID: tenant.id, customerRef: body.customerRef)
        let deviceKey = PinThrottle.deviceKey(tenantID: tenant.id, address: address, deviceID: body.device?.id)
        let gate = try await pinSignIns.gate(
            tenantID: tenant.id, customerRef: body.customerRef, customerKey: customerKey, deviceKey: deviceKey, now: now
        )
        if let until = gate.blockedUntil {
            // Stored times are whole milliseconds: ignore the rounding when turning it into seconds.
            let seconds = max(1, Int((until.timeIntervalSince(now) - 0.005).rounded(.up)))
            throw ServiceError(
                .rateLimitExceeded, "Too many attempts. Try again in \(seconds) s.",
                headers: [.retryAfter: "\(seconds)"])
        }

        let matchesPin: Bool
        let matchesDuressPin: Bool
        if let customer = gate.customer {
            matchesPin = await pins.verify(body.pin, tenantID: tenant.id, against: customer.pinHash)
            matchesDuressPin = await pins.verify(body.pin, tenantID: tenant.id, against: customer.duressPinHash)
        } else {
            matchesPin = await pins.verifyUnknown(body.pin, tenantID: tenant.id)
            matchesDuressPin = await pins.verifyUnknown(body.pin, tenantID: tenant.id)
        }
        guard let customer = gate.customer, matchesPin || matchesDuressPin else {
            try await pinSignIns.recordFailure(
                customerKey: customerKey, deviceKey: deviceKey, policy: throttle, now: now)
            return try Response.json(PinLoginResponse(verdict: .fail, recommendedAction: Self.retry))
        }

        let (token, hash) = issuer.refreshToken()
        let session = SessionRecord(
            id: entropy.uuid().uuidString.lowercased(), userId: customer.userId, createdAt: now, lastUsedAt: now,
            revokedAt: nil, ipAddress: address, userAgent: request.headers[.userAgent].map { String($0.prefix(256)) },
            devicePlatform: body.device?.platform, deviceVersion: body.device?.version, tenantId: tenant.id)
        let verdict = try await pinSignIns.openSession(
            customer: customer, duress: matchesDuressPin, session: session,
            refreshToken: RefreshTokenRecord(
                tokenHash: hash, sessionId: session.id, issuedAt: now,
                expiresAt: now.addingTimeInterval(issuer.refreshTokenTTL)),
            customerKey: customerKey, deviceKey: deviceKey, location: body.location, device: body.device,
            incidentID: entropy.uuid().uuidString.lowercased(), now: now)
        context.logger.info("signed in", metadata: ["user_id": "\(customer.userId)", "session_id": "\(session.id)"])
        return try Response.json(
            PinLoginResponse(
                verdict: verdict, recommendedAction: Self.proceed, sessionId: session.id,
                accessToken: try await issuer.accessToken(
                    userID: customer.userId, sessionID: session.id, issuedAt: now),
                tokenType: "Bearer", expiresIn: Int(issuer.accessTokenTTL), refreshToken: token,
                refreshExpiresIn: Int(issuer.refreshTokenTTL)))
    }

    /// `GET /v1/sessions/verify?sessionId=` → whether the session can still be used. The id
    /// is an unguessable capability; the answer says nothing else about the session.
    @Sendable func verify(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        guard let raw = request.uri.queryParameters.get("sessionId") else {
            throw ServiceError.validation("`sessionId` is required.")
        }
        let id = try ObjectID.field(raw, "sessionId")
        let valid = try await sessions.sessionState(id: id, now: clock.now()) != nil
        return try Response.json(SessionVerification(sessionId: id, valid: valid))
    }
}
