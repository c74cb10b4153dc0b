import Contracts
import Foundation
import GRDB
import ServiceKit

/// Tenants' duress alerts (Transrify).
extension AlertsStore {
    /// `duress.raised` → a duress alert for the customer's tenant. Applied once per event.
    static func duressRaised(_ envelope: EventEnvelope<DuressRaised>, in db: Database) throws {
        let event = envelope.payload
        try DuressAlertRecord(
            id: envelope.id.uuidString.lowercased(), incidentId: event.incidentId, tenantId: event.tenantId,
            customerRef: event.customerRef, userId: event.userId, latitude: event.location?.latitude,
            longitude: event.location?.longitude, devicePlatform: event.device?.platform, raisedAt: event.raisedAt
        ).insert(db, onConflict: .ignore)
    }
}
