import Contracts
import Foundation
import Hummingbird
import ServiceKit

/// Transrify's sign-in by tenant key, customer reference and PIN, with its silent duress PIN:
/// `POST /v1/sessions/login` and `GET /v1/sessions/verify`.
///
/// A NORMAL and a DURESS answer are the same in status, headers, field order and size; only
/// the verdict string differs, and the session's `limited` flag lives only on the server.
/// Both PINs are always checked, and an unknown customer costs the same two checks, so the
/// time taken does not tell which PIN matched or whether the customer exists. Nothing logged
/// here names the verdict.
struct PinSessionsController: Sendable {
    let store: AuthStore
    let pins: PinHasher
    let issuer: TokenIssuer
    let throttle: PinThrottle.Policy
    let clock: any WallClock
    let entropy: any Entropy

    static let proceed = "PROCEED"
    static let retry = "RETRY"

    func addRoutes(to router: Router<ServiceRequestContext>) {
        router.post("/v1/sessions/login", use: login)
        router.get("/v1/sessions/verify", use: verify)
    }

    @Sendable func login(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: PinLoginRequest.self, context: context)
        let tenant = try await TenantKeys.tenant(presenting: body.tenantKey, in: store)
        try PinRules.validateReference(body.customerRef)
        try PinRules.validatePin(body.pin, field: "pin")
        try Credentials.validate(body.device)
        try PinRules.validate(body.location)

        let now = clock.now()
        let address = try await ClientAddress.of(request, context: context) ?? "unknown"
        let customerKey = PinThrottle.customerKey(tenantID: tenant.id, customerRef: body.customerRef)
        let deviceKey = PinThrottle.deviceKey(tenantID: tenant.id, address: address, deviceID: body.device?.id)
        let gate = try await store.pinGate(
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
            try await store.recordPinFailure(customerKey: customerKey, deviceKey: deviceKey, policy: throttle, now: now)
            return try Response.json(PinLoginResponse(verdict: .fail, recommendedAction: Self.retry))
        }

        let (token, hash) = issuer.refreshToken()
        let session = SessionRecord(
            id: entropy.uuid().uuidString.lowercased(), userID: customer.userID, createdAt: now, lastUsedAt: now,
            revokedAt: nil, ipAddress: address, userAgent: request.headers[.userAgent].map { String($0.prefix(256)) },
            devicePlatform: body.device?.platform, deviceVersion: body.device?.version, tenantID: tenant.id)
        let verdict = try await store.openPinSession(
            customer: customer, duress: matchesDuressPin, session: session,
            refreshToken: RefreshTokenRecord(
                tokenHash: hash, sessionID: session.id, issuedAt: now,
                expiresAt: now.addingTimeInterval(issuer.refreshTokenTTL)),
            customerKey: customerKey, deviceKey: deviceKey, location: body.location, device: body.device,
            incidentID: entropy.uuid().uuidString.lowercased(), now: now)
        context.logger.info("signed in", metadata: ["user_id": "\(customer.userID)", "session_id": "\(session.id)"])
        return try Response.json(
            PinLoginResponse(
                verdict: verdict, recommendedAction: Self.proceed, sessionId: session.id,
                accessToken: try await issuer.accessToken(
                    userID: customer.userID, sessionID: session.id, issuedAt: now),
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
        let valid = try await store.sessionState(id: id, now: clock.now()) != nil
        return try Response.json(SessionVerification(sessionId: id, valid: valid))
    }
}

/// Tenant API keys: `tk_` and 256 random bits, stored as SHA-256.
enum TenantKeys {
    static func make(entropy: any Entropy) -> (key: String, hash: String) {
        let key = "tk_" + entropy.token(bytes: 32)
        return (key, TokenIssuer.hash(key))
    }

    /// The tenant a key belongs to: `INVALID_TENANT_KEY` when none, `TENANT_SUSPENDED` when
    /// it is suspended.
    static func tenant(presenting key: String, in store: AuthStore) async throws -> TenantRecord {
        guard (1...256).contains(key.utf8.count), let tenant = try await store.tenant(apiKeyHash: TokenIssuer.hash(key))
        else {
            throw ServiceError(.invalidTenantKey, "The tenant key is not valid.")
        }
        guard tenant.status == .active else {
            throw ServiceError(.tenantSuspended, "This tenant is suspended.")
        }
        return tenant
    }
}

/// What customer references, PINs and locations must look like.
enum PinRules {
    /// Alphanumeric (ASCII), 3 to 50 characters.
    static func validateReference(_ reference: String) throws {
        guard (3...50).contains(reference.utf8.count),
            reference.utf8.allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            })
        else {
            throw ServiceError.validation("`customerRef` must be 3 to 50 letters or digits.")
        }
    }

    /// 4 to 8 ASCII digits.
    static func validatePin(_ pin: String, field: String) throws {
        guard (4...8).contains(pin.utf8.count), pin.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw ServiceError.validation("`\(field)` must be 4 to 8 digits.")
        }
    }

    static func validate(_ location: GeoLocation?) throws {
        guard let location else { return }
        guard location.latitude.isFinite, location.longitude.isFinite, (-90...90).contains(location.latitude),
            (-180...180).contains(location.longitude)
        else {
            throw ServiceError.validation("`location` must have latitude in -90…90 and longitude in -180…180.")
        }
    }
}
