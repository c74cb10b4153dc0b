import AsyncHTTPClient
import Crypto
import Foundation
import ServiceHTTP
import TestSupport
import Testing

@testable import AlertsService

/// The benchmark's fake APNs checks what Apple checks, so a fan-out it counts is one APNs would
/// have taken: alerts' APNs sender against it, with a good push, a bad device token and a
/// provider token signed by another key.
struct FakeAPNsSinkTests {
    static func device(_ token: String) -> DeviceRecord {
        DeviceRecord(
            id: UUID().uuidString.lowercased(), userId: "u", sessionId: "s", provider: .apns, token: token,
            bundleId: "com.example.bench", environment: .production, platform: nil, deviceId: nil,
            createdAt: Date(), lastRefreshedAt: Date())
    }

    static let message = PushMessage(
        notificationId: "n1", type: .friendRequest, title: "Bench", body: "sent you a friend request", link: nil,
        data: [:], badge: 1, critical: false, threadId: nil, expiresAt: Date().addingTimeInterval(3600))

    func sender(_ sink: FakeAPNsSink, keyFile: URL, http: HTTPClient) throws -> APNsSender {
        try APNsSender(
            settings: AlertsSettings.APNs(
                keyFile: keyFile, keyID: sink.keyID, teamID: sink.teamID, productionURL: sink.url,
                sandboxURL: sink.url, criticalAlerts: false),
            http: http, clock: SystemClock())
    }

    @Test func acceptsWhatAppleAcceptsAndRefusesWhatItRefuses() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        let sink = try await FakeAPNsSink.start(directory: directory)
        let http = PushHTTP.makeClient(trustRoots: sink.caFile)
        do {
            let apns = try sender(sink, keyFile: sink.apnsKeyFile, http: http)
            let good = [
                Self.device(String(repeating: "ab", count: 32)), Self.device(String(repeating: "0f", count: 32)),
            ]
            let bad = Self.device("not-a-token")
            let outcomes = await apns.send(Self.message, to: good + [bad])
            for device in good {
                guard case .delivered(let id) = outcomes[device.id] else {
                    Issue.record("\(device.token): \(String(describing: outcomes[device.id]))")
                    continue
                }
                #expect(id?.isEmpty == false)
            }
            #expect(outcomes[bad.id] == .unregistered("BadDeviceToken"))
            let accepted = sink.accepted()
            #expect(accepted.pushes == 2)
            #expect(accepted.connections == 1)

            // A provider token signed by a key that is not the team's.
            let otherKey = directory.url.appendingPathComponent("AuthKey_OTHER.p8")
            try FileSystem.writeOwnerOnly(Data(P256.Signing.PrivateKey().pemRepresentation.utf8), to: otherKey)
            let forged = try sender(sink, keyFile: otherKey, http: http)
            let refused = await forged.send(Self.message, to: [good[0]])
            #expect(refused[good[0].id] == .retry(after: 1, "InvalidProviderToken"))
            #expect(sink.refused == ["BadDeviceToken": 1, "InvalidProviderToken": 1])
            #expect(sink.accepted().pushes == 2)
        } catch {
            try? await http.shutdown()
            await sink.stop()
            throw error
        }
        try await http.shutdown()
        await sink.stop()
    }
}
