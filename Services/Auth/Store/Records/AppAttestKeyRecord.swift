import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `app_attest_key`: an App Attest key a user's device registered with a verified
/// attestation, and the last assertion counter accepted for it (assertions must go above it).
struct AppAttestKeyRecord: ServiceRecord {
    static let databaseTableName = "app_attest_key"

    var keyId: String
    var userId: String
    /// The session that registered it.
    var sessionId: String
    var appId: String
    var environment: String
    /// The public key as an uncompressed point (X9.63).
    var publicKey: Data
    /// Apple's receipt from the attestation.
    var receipt: Data
    var counter: Int64
    var createdAt: Date
    var lastAssertedAt: Date?

    var summary: AttestedKeySummary {
        AttestedKeySummary(
            keyId: keyId, appId: appId, environment: environment, createdAt: createdAt, lastAssertedAt: lastAssertedAt)
    }
}
