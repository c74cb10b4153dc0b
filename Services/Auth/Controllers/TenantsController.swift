import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// A tenant's own administration: its admins enrol customers and reset their PINs; its
/// responders (and admins) see and clear duress incidents. Someone from another tenant gets
/// 404, as for an object that does not exist.
struct TenantsController: Sendable {
    let store: TenantStore
    let pins: PinHasher
    let clock: any WallClock
    let entropy: any Entropy

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.post("/v1/tenants/:tenantId/customers", use: enrol)
        routes.authenticated.get("/v1/tenants/:tenantId/customers/:customerRef", use: customer)
        routes.authenticated.put("/v1/tenants/:tenantId/customers/:customerRef/pins", use: resetPins)
        routes.authenticated.get("/v1/tenants/:tenantId/incidents", use: incidents)
        routes.authenticated.post("/v1/tenants/:tenantId/incidents/:id/clear", use: clear)
    }

    /// `POST /v1/tenants/{tenantId}/customers` → 201; a reference already enrolled is 409.
    @Sendable func enrol(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let tenantID = try await tenant(context, allowing: [.tenantAdmin])
        let body = try await request.decodeJSON(as: CustomerEnrolment.self, context: context)
        try PinRules.validateReference(body.customerRef)
        let (pinHash, duressHash) = try await hashPins(pin: body.pin, duressPin: body.duressPin, tenantID: tenantID)
        let now = clock.now()
        let userID = entropy.uuid().uuidString.lowercased()
        let record = CustomerRecord(
            userId: userID, tenantId: tenantID, customerRef: body.customerRef, pinHash: pinHash,
            duressPinHash: duressHash, createdAt: now, pinsUpdatedAt: now)
        try await store.enrol(
            record,
            user: UserRecord(
                id: userID, email: nil, passwordHash: nil, displayName: body.customerRef, createdAt: now, updatedAt: now
            ))
        return try Response.json(record.customer, status: .created)
    }

    @Sendable func customer(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let tenantID = try await tenant(context, allowing: [.tenantAdmin])
        let reference = try context.parameters.require("customerRef")
        guard let record = try await store.customer(tenantID: tenantID, customerRef: reference) else {
            throw ServiceError.notFound("Customer")
        }
        return try Response.json(record.customer)
    }

    /// `PUT /v1/tenants/{tenantId}/customers/{customerRef}/pins`: both PINs at once.
    @Sendable func resetPins(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let tenantID = try await tenant(context, allowing: [.tenantAdmin])
        let reference = try context.parameters.require("customerRef")
        let body = try await request.decodeJSON(as: CustomerPins.self, context: context)
        let (pinHash, duressHash) = try await hashPins(pin: body.pin, duressPin: body.duressPin, tenantID: tenantID)
        guard
            let record = try await store.replacePins(
                tenantID: tenantID, customerRef: reference, pinHash: pinHash, duressPinHash: duressHash,
                now: clock.now())
        else { throw ServiceError.notFound("Customer") }
        return try Response.json(record.customer)
    }

    /// `GET /v1/tenants/{tenantId}/incidents?status=open|all` → newest first, paged.
    @Sendable func incidents(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let tenantID = try await tenant(context, allowing: [.tenantAdmin, .tenantResponder])
        let openOnly = try request.openOnly()
        let page = try PageRequest<TimePosition>(request: request)
        let records = try await store.incidents(
            tenantID: tenantID, openOnly: openOnly, after: page.position, limit: page.limit + 1)
        return try Response.json(
            Page(records, limit: page.limit, item: \.incident) { TimePosition(createdAt: $0.raisedAt, id: $0.id) })
    }

    /// `POST /v1/tenants/{tenantId}/incidents/{id}/clear`: the customer is safe; later
    /// sign-ins are normal again.
    @Sendable func clear(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let tenantID = try await tenant(context, allowing: [.tenantAdmin, .tenantResponder])
        let id = try ObjectID.path(context.parameters.require("id"), "Incident")
        guard
            let incident = try await store.clearIncident(
                tenantID: tenantID, id: id, by: try context.requireMember().userID, now: clock.now())
        else { throw ServiceError.notFound("Incident") }
        return try Response.json(incident.incident)
    }

    /// The tenant in the path, when the caller holds one of `roles` in it or is an admin;
    /// anyone else gets 404 (a tenant they cannot see does not exist for them).
    private func tenant(_ context: ServiceRequestContext, allowing roles: [Role]) async throws -> String {
        let user = try context.requireMember()
        let tenantID = try ObjectID.path(context.parameters.require("tenantId"), "Tenant")
        guard user.has(.admin) || roles.contains(where: { user.has($0, tenantID: tenantID) }),
            try await store.tenant(id: tenantID) != nil
        else {
            throw ServiceError.notFound("Tenant")
        }
        return tenantID
    }

    private func hashPins(pin: String, duressPin: String, tenantID: String) async throws -> (String, String) {
        try PinRules.validatePin(pin, field: "pin")
        try PinRules.validatePin(duressPin, field: "duressPin")
        guard pin != duressPin else { throw ServiceError.validation("`pin` and `duressPin` must differ.") }
        return (try await pins.hash(pin, tenantID: tenantID), try await pins.hash(duressPin, tenantID: tenantID))
    }
}
