import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Deployment administration, for admins: tenants and their keys, and roles.
struct AdminController: Sendable {
    let tenants: TenantStore
    let users: UserStore
    let clock: any WallClock
    let entropy: any Entropy

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.post("/v1/admin/tenants", use: createTenant)
        routes.authenticated.get("/v1/admin/tenants", use: listTenants)
        routes.authenticated.patch("/v1/admin/tenants/:id", use: updateTenant)
        routes.authenticated.post("/v1/admin/tenants/:id/api-key", use: replaceKey)
        routes.authenticated.post("/v1/admin/roles", use: grant)
        routes.authenticated.post("/v1/admin/roles/revoke", use: revoke)
    }

    /// `POST /v1/admin/tenants` → 201 with the tenant and its API key, shown only now.
    @Sendable func createTenant(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        let body = try await request.decodeJSON(as: TenantCreate.self, context: context)
        guard let name = try OneLineText.read(body.name, field: "name", maxLength: 100) else {
            throw ServiceError.validation("`name` must not be blank.")
        }
        let now = clock.now()
        let (key, hash) = TenantKeys.make(entropy: entropy)
        let tenant = TenantRecord(
            id: entropy.uuid().uuidString.lowercased(), name: name, apiKeyHash: hash, status: .active, createdAt: now,
            updatedAt: now)
        try await tenants.createTenant(tenant)
        return try Response.json(TenantKeyIssued(tenant: tenant.tenant, apiKey: key), status: .created)
    }

    /// `GET /v1/admin/tenants` → newest first, paged.
    @Sendable func listTenants(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        let page = try PageRequest<TimePosition>(request: request)
        let records = try await tenants.tenants(after: page.position, limit: page.limit + 1)
        return try Response.json(
            Page(records, limit: page.limit, item: \.tenant) { TimePosition(createdAt: $0.createdAt, id: $0.id) })
    }

    /// `PATCH /v1/admin/tenants/{id}`: suspend or reactivate. A suspended tenant's customers
    /// get `TENANT_SUSPENDED` at sign-in.
    @Sendable func updateTenant(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        let id = try ObjectID.path(context.parameters.require("id"), "Tenant")
        let body = try await request.decodeJSON(as: TenantUpdate.self, context: context)
        guard let tenant = try await tenants.updateTenant(id: id, now: clock.now(), { $0.status = body.status }) else {
            throw ServiceError.notFound("Tenant")
        }
        return try Response.json(tenant.tenant)
    }

    /// `POST /v1/admin/tenants/{id}/api-key` → a new key; the old one stops working at once.
    @Sendable func replaceKey(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        let id = try ObjectID.path(context.parameters.require("id"), "Tenant")
        let (key, hash) = TenantKeys.make(entropy: entropy)
        guard let tenant = try await tenants.updateTenant(id: id, now: clock.now(), { $0.apiKeyHash = hash }) else {
            throw ServiceError.notFound("Tenant")
        }
        return try Response.json(TenantKeyIssued(tenant: tenant.tenant, apiKey: key))
    }

    @Sendable func grant(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await change(request, context: context, granted: true)
    }

    @Sendable func revoke(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await change(request, context: context, granted: false)
    }

    private func change(_ request: Request, context: ServiceRequestContext, granted: Bool) async throws -> Response {
        let admin = try context.require(.admin)
        let body = try await request.decodeJSON(as: RoleChange.self, context: context)
        guard let raw = body.userId else { throw ServiceError.validation("`userId` is required.") }
        let userID = try ObjectID.field(raw, "userId")
        if !granted, userID == admin.userID, body.role == .admin {
            throw ServiceError(.conflict, "Admins cannot remove their own admin role.")
        }
        return try Response.json(try await RoleChanges.apply(body, userID: userID, granted: granted, store: users))
    }
}
