import Contracts
import ServiceHTTP

/// Granting and revoking roles, shared by admins' route and the CLI's internal route.
enum RoleChanges {
    static func apply(_ change: RoleChange, userID: String, granted: Bool, store: UserStore) async throws -> UserRoles {
        let grant = try grant(of: change)
        guard let roles = try await store.changeRole(userID: userID, grant: grant, granted: granted) else {
            throw ServiceError.notFound(grant.tenantId == nil ? "User" : "User or tenant")
        }
        return UserRoles(userId: userID, roles: roles)
    }

    /// The grant a change names: tenant roles need a tenant, other roles must not have one;
    /// `user` is implied and cannot be changed.
    static func grant(of change: RoleChange) throws -> RoleGrant {
        guard change.role != .user else { throw ServiceError.validation("`user` is every account's role.") }
        if change.role.isTenantScoped {
            guard let raw = change.tenantId else {
                throw ServiceError.validation("`tenantId` is required for \(change.role.rawValue).")
            }
            return RoleGrant(role: change.role, tenantId: try ObjectID.field(raw, "tenantId"))
        }
        guard change.tenantId == nil else {
            throw ServiceError.validation("`tenantId` applies only to tenant roles.")
        }
        return RoleGrant(role: change.role)
    }
}
