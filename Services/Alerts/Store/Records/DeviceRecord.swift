import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `device`: one push token, owned by one session of one user. `(provider, token)` is
/// unique: a token registered again, by anyone, moves to the new session.
struct DeviceRecord: ServiceRecord {
    static let databaseTableName = "device"

    var id: String
    var userId: String
    var sessionId: String
    var provider: PushProvider
    var token: String
    var bundleId: String?
    var environment: APNsEnvironment?
    var platform: String?
    var deviceId: String?
    var createdAt: Date
    var lastRefreshedAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case id, provider, token
        case userId = "user_id"
        case sessionId = "session_id"
        case deviceId = "device_id"
        case lastRefreshedAt = "last_refreshed_at"
    }

    func contract(currentSession: String) -> Device {
        Device(
            id: id,
            registration: DeviceRegistration(
                provider: provider, token: token, bundleId: bundleId, environment: environment, platform: platform,
                deviceId: deviceId),
            currentSession: sessionId == currentSession, createdAt: createdAt, lastRefreshedAt: lastRefreshedAt)
    }
}

extension DeviceRecord {
    /// Read by hand rather than through `Decodable`: every push reads its user's devices.
    init(row: Row) throws {
        id = try row.decode(forColumn: "id")
        userId = try row.decode(forColumn: "user_id")
        sessionId = try row.decode(forColumn: "session_id")
        provider = try row.decode(forColumn: "provider")
        token = try row.decode(forColumn: "token")
        bundleId = try row.decode(forColumn: "bundle_id")
        environment = try row.decode(forColumn: "environment")
        platform = try row.decode(forColumn: "platform")
        deviceId = try row.decode(forColumn: "device_id")
        createdAt = try row.decode(forColumn: "created_at")
        lastRefreshedAt = try row.decode(forColumn: "last_refreshed_at")
    }
}

extension DerivableRequest<DeviceRecord> {
    /// `user`'s devices.
    func of(_ user: String) -> Self { filter(DeviceRecord.Columns.userId == user) }
}

extension PushProvider: DatabaseValueConvertible {}
extension APNsEnvironment: DatabaseValueConvertible {}
