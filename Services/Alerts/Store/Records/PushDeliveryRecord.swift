import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `push_delivery`: what a provider answered for one notification on one device.
/// Written in the transaction that completes the delivery job, so a device that has a row is
/// never pushed that notification again.
struct PushDeliveryRecord: ServiceRecord {
    static let databaseTableName = "push_delivery"

    enum Status: String, Codable, DatabaseValueConvertible {
        /// The provider accepted it.
        case delivered
        /// The provider refused this message for this device for good.
        case failed
    }

    var notificationId: String
    var deviceId: String
    var provider: PushProvider
    var status: Status
    /// The provider's id (`apns-id`, FCM's message name, Expo's ticket id).
    var providerId: String?
    var detail: String?
    var at: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case notificationId = "notification_id"
        case deviceId = "device_id"
    }

    /// Inserts it unless the device has an answer for the notification already, with a
    /// statement the connection keeps (a fan-out writes one per push).
    func insertPrepared(_ db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO push_delivery
                (notification_id, device_id, provider, status, provider_id, detail, at) VALUES (?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [notificationId, deviceId, provider.rawValue, status.rawValue, providerId, detail, at])
    }
}
