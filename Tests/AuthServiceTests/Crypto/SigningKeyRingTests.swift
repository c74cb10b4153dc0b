import Foundation
import ServiceHTTP
import TestSupport
import Testing

@testable import AuthService

/// Rotation as auth sees it: a new key in the directory signs after a reload, and the one it
/// replaced stays published exactly as long as tokens it signed can still be valid.
@Suite struct SigningKeyRingTests {
    @Test func aNewKeySignsAfterAReloadAndTheOldOneIsPublishedUntilItsTokensExpire() async throws {
        try await withTestDataDirectory { directory in
            let keys = SigningKeyStore.defaultDirectory(dataDirectory: directory.url)
            let clock = ManualClock(Date().addingTimeInterval(60))
            let ring = try await SigningKeyRing(directory: keys, clock: clock, retention: 970)
            let first = await ring.signingKeyID
            #expect(try await ring.reloadIfChanged() == false)
            #expect(try await ring.fetchKeys().keys.map(\.kid) == [first])

            let second = try SigningKeyStore.createKey(in: keys, clock: clock, entropy: SystemEntropy())
            #expect(await ring.signingKeyID == first, "nothing changes before the reload")
            #expect(try await ring.reloadIfChanged())
            #expect(await ring.signingKeyID == second.kid)
            #expect(try await ring.fetchKeys().keys.map(\.kid) == [second.kid, first])

            clock.advance(by: 969)
            #expect(try await ring.fetchKeys().keys.count == 2)
            clock.advance(by: 2)
            #expect(try await ring.fetchKeys().keys.map(\.kid) == [second.kid])
        }
    }
}
