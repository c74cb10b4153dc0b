import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Push devices of the signed-in session: register, list, remove; and StreakSnap's spelling,
/// `PUT /v1/me/push-token` with an Expo token.
struct DevicesController: Sendable {
    let store: AlertsStore
    let clock: any WallClock
    let entropy: any Entropy

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticatedWhileSuspended.post("/v1/devices", use: register)
        routes.authenticated.get("/v1/devices", use: list)
        routes.authenticatedWhileSuspended.delete("/v1/devices/:id", use: remove)
        routes.authenticatedWhileSuspended.put("/v1/me/push-token", use: putPushToken)
        routes.authenticatedWhileSuspended.delete("/v1/me/push-token", use: deletePushToken)
    }

    /// 201 with the new device, or 200 when this user had the token already (refreshed).
    @Sendable func register(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: DeviceRegistration.self, context: context, limit: 16 << 10)
        return try await register(body, context: context)
    }

    /// All of the user's devices (every session), most recently refreshed first; one page.
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let devices = try await store.devices(of: user.userID)
        return try Response.json(
            Page(items: devices.map { $0.contract(currentSession: user.sessionID) }, nextCursor: nil))
    }

    /// 204; another user's device is a 404.
    @Sendable func remove(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Device")
        guard try await store.removeDevice(id: id, of: user.userID) else { throw ServiceError.notFound("Device") }
        return Response(status: .noContent)
    }

    /// StreakSnap: `{"pushToken": "ExponentPushToken[…]"}` registers an Expo device.
    @Sendable func putPushToken(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: PushTokenUpdate.self, context: context, limit: 16 << 10)
        return try await register(DeviceRegistration(provider: .expo, token: body.pushToken), context: context)
    }

    /// 204: this session's Expo devices are removed (nothing to remove is fine).
    @Sendable func deletePushToken(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        _ = try await store.removeDevices(of: user.userID, session: user.sessionID, provider: .expo)
        return Response(status: .noContent)
    }

    private func register(_ registration: DeviceRegistration, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let registration = try PushTokenRules.validated(registration)
        let outcome = try await store.register(
            registration, user: user.userID, session: user.sessionID, newID: entropy.uuid().uuidString.lowercased(),
            at: clock.now())
        switch outcome {
        case .created(let record):
            return try Response.json(record.contract(currentSession: user.sessionID), status: .created)
        case .refreshed(let record):
            return try Response.json(record.contract(currentSession: user.sessionID))
        }
    }
}
