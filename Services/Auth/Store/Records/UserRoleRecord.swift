import Contracts
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `user_role`: a role granted to a user, for one tenant (tenant roles) or for the
/// whole deployment (`tenantId` is then `""`, so the primary key treats those as equal).
struct UserRoleRecord: ServiceRecord {
    static let databaseTableName = "user_role"

    var userId: String
    var role: String
    var tenantId: String

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case role
        case userId = "user_id"
        case tenantId = "tenant_id"
    }

    init(userId: String, grant: RoleGrant) {
        self.userId = userId
        self.role = grant.role.rawValue
        self.tenantId = grant.tenantId ?? ""
    }

    /// The grant, or nil for a role this version does not know.
    var grant: RoleGrant? {
        Role(rawValue: role).map { RoleGrant(role: $0, tenantId: tenantId.isEmpty ? nil : tenantId) }
    }
}
