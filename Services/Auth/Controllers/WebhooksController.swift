import Contracts
import Crypto
import Foundation
import Hummingbird
import ServiceHTTP

/// `POST /v1/webhooks/revenuecat`: subscription and purchase events from RevenueCat.
///
/// RevenueCat sends the configured secret as the `Authorization` header (with or without
/// `Bearer `); it is compared in constant time. Each event id is applied once; a redelivery
/// answers 200 `duplicate`, so RevenueCat stops retrying.
struct WebhooksController: Sendable {
    let store: EntitlementStore
    let secret: String
    let tokenPacks: [String: Int]
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.post("/v1/webhooks/revenuecat", use: revenueCat)
    }

    @Sendable func revenueCat(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        guard let header = request.headers[.authorization] else { throw ServiceError.authenticationRequired }
        let presented = header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : header
        guard Self.constantTimeEqual(presented, secret) else {
            throw ServiceError(.invalidCredentials, "The webhook authorization is wrong.")
        }
        let body = try await request.decodeJSON(as: RevenueCatWebhook.self, context: context)
        guard (1...200).contains(body.event.id.utf8.count), (1...64).contains(body.event.type.utf8.count) else {
            throw ServiceError.validation("`event.id` and `event.type` are required.")
        }
        let outcome = try await store.applyRevenueCat(body.event, tokenPacks: tokenPacks, now: clock.now())
        context.logger.info(
            "revenuecat event", metadata: ["event_id": "\(body.event.id)", "outcome": "\(outcome.rawValue)"])
        return try Response.json(WebhookReceipt(status: outcome.rawValue))
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        // Compare digests: equal length, and no early exit on the first differing byte.
        let left = SHA256.hash(data: Data(a.utf8))
        let right = SHA256.hash(data: Data(b.utf8))
        return zip(left, right).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
