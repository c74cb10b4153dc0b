import Contracts
import ServiceHTTP

/// Tenant API keys: `tk_` and 256 random bits, stored as SHA-256.
enum TenantKeys {
    static func make(entropy: any Entropy) -> (key: String, hash: String) {
        let key = "tk_" + entropy.token(bytes: 32)
        return (key, TokenIssuer.hash(key))
    }

    /// The tenant a key belongs to: `INVALID_TENANT_KEY` when none, `TENANT_SUSPENDED` when
    /// it is suspended.
    static func tenant(presenting key: String, in store: TenantStore) async throws -> TenantRecord {
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
