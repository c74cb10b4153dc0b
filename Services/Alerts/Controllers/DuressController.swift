import Contracts
import Foundation
import Hummingbird
import ServiceHTTP
import ServiceStore

/// Transrify's duress alert routes, as its app calls them: the person in duress locates their
/// alert (`POST /v1/alerts/duress`), colleagues poll for open alerts around them
/// (`GET /v1/alerts/nearby`) and acknowledge one (`POST /v1/alerts/ack`): a tenant's PIN
/// customers, the tenant always the session's. The tenant's responders and admins list its
/// alerts (`GET /v1/alerts/duress`).
struct DuressController: Sendable {
    let store: AlertsStore
    let jobs: JobQueue
    let reach: AlertsStore.DuressReach
    let clock: any WallClock
    let entropy: any Entropy

    /// `radius_m` of `/nearby`: Transrify's `ALERT_RADIUS_METERS` bounds and default.
    static let radii = 100...10_000
    static let defaultRadius = 1_000
    static let nfcPrefix = "trf:duress:"

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticatedWhileSuspended.post("/v1/alerts/duress", use: locate)
        routes.authenticated.get("/v1/alerts/nearby", use: nearby)
        routes.authenticatedWhileSuspended.post("/v1/alerts/ack", use: acknowledge)
        routes.authenticated.get("/v1/alerts/duress", use: list)
    }

    /// `GET /v1/alerts/duress?tenantId=&status=open|all`: the tenant's alerts for its
    /// responders and admins (and deployment admins), newest first, paged, with who
    /// acknowledged them. Anyone else gets a 404, as for a tenant that does not exist.
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        guard let tenantID = request.uri.queryParameters.get("tenantId"), user.isStaff(of: tenantID) else {
            throw ServiceError.notFound("Tenant")
        }
        let openOnly = try request.openOnly()
        let page = try PageRequest<TimePosition>(request: request)
        let alerts = try await store.duressAlerts(
            tenantID: tenantID, openOnly: openOnly, after: page.position, limit: page.limit + 1)
        return try Response.json(
            Page(alerts, limit: page.limit, item: \.self) { TimePosition(createdAt: $0.raisedAt, id: $0.alertId) })
    }

    /// 200 `{alertId}`, the same for every call of a session, under duress or not.
    @Sendable func locate(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let caller = try Self.caller(context)
        let body = try await request.decodeJSON(as: DuressAlertRequest.self, context: context, limit: 16 << 10)
        guard body.alertKind == "DURESS" else { throw ServiceError.validation("`alertKind` must be \"DURESS\".") }
        guard body.sessionId == caller.sessionID else {
            throw ServiceError.validation("`sessionId` must be the session of the access token.")
        }
        let location = try body.location.map { try Coordinate(latitude: $0.latitude, longitude: $0.longitude) }
        let alertID = try await store.locateDuressAlert(
            for: caller, at: location, device: body.device.map { String($0.platform.prefix(32)) },
            newID: entropy.uuid().uuidString.lowercased(), reach: reach, jobs: jobs, now: clock.now())
        return try Response.json(DuressAlertAccepted(alertId: alertID))
    }

    /// 200 `{alerts}`: open alerts of the caller's tenant within `radius_m` of `lat`,`lon`.
    @Sendable func nearby(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let caller = try Self.caller(context)
        guard let center = try request.queryPoint() else { throw ServiceError.validation("`lat` is required.") }
        let radius = try request.queryNumber("radius_m") ?? Double(Self.defaultRadius)
        guard radius.rounded() == radius, Self.radii.contains(Int(radius)) else {
            throw ServiceError.validation(
                "`radius_m` must be a whole number of metres from \(Self.radii.lowerBound) to \(Self.radii.upperBound)."
            )
        }
        // A HEAD is safe: it records no poll.
        if request.method == .head {
            return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"])
        }
        let alerts = try await store.nearbyAlerts(
            for: caller, around: center, radius: radius, reach: reach, jobs: jobs, now: clock.now())
        return try Response.json(NearbyAlerts(alerts: alerts))
    }

    /// 200 with the caller's acknowledgement (the first one, if they acknowledged before); an
    /// alert that is not an open one of their tenant is a 404.
    @Sendable func acknowledge(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let caller = try Self.caller(context)
        let body = try await request.decodeJSON(
            as: AlertAcknowledgementRequest.self, context: context, limit: 16 << 10)
        let alertID = try ObjectID.field(body.alertId, "alertId")
        if body.method == .nfc {
            guard let payload = body.payload else {
                throw ServiceError.validation("`payload` (the NFC tag's `trf:duress:<alertId>`) is required for NFC.")
            }
            // The tag of the phone in duress names the alert its session was given: this alert,
            // or (for a later sign-in under the same incident) a second name of it.
            guard payload.hasPrefix(Self.nfcPrefix),
                let named = ObjectID.canonical(String(payload.dropFirst(Self.nfcPrefix.count))),
                try await store.isName(named, of: alertID)
            else {
                throw ServiceError(.nfcPayloadMismatch, "The NFC payload does not name this alert.")
            }
        }
        guard
            let acknowledgement = try await store.acknowledge(
                alertID: alertID, by: caller, method: body.method, jobs: jobs, now: clock.now())
        else { throw ServiceError.notFound("Alert") }
        return try Response.json(acknowledgement.contract)
    }

    /// The caller as a tenant's customer; anyone else has no duress alerts to see (403).
    static func caller(_ context: ServiceRequestContext) throws -> AlertsStore.DuressCaller {
        let user = try context.requireUser()
        guard let tenant = user.tenantID else {
            throw ServiceError(.forbidden, "Duress alerts are for a tenant's customers signed in with their PIN.")
        }
        return AlertsStore.DuressCaller(
            userID: user.userID, sessionID: user.sessionID, tenantID: tenant, customerRef: user.customerRef ?? "",
            limited: user.limited)
    }
}
