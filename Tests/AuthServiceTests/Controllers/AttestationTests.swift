import Crypto
import Foundation
import GRDB
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import SwiftASN1
import TestSupport
import Testing
import X509

@testable import AuthService

@Suite struct AttestationTests {
    /// Auth trusting `fixture`'s test root for its app.
    func withAttestation(
        _ fixture: AppAttestFixture, environment: String = "production",
        _ body: @escaping @Sendable (any TestClientProtocol, TestDataDirectory) async throws -> Void
    ) async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        let root = directory.url.appendingPathComponent("app-attest-root.pem")
        try Data(try fixture.rootPEM.utf8).write(to: root)
        let config = fastHashing.merging([
            "auth.appAttest.appIds": fixture.appID, "auth.appAttest.rootCertificateFile": root.path,
            "auth.appAttest.environment": environment,
        ]) { $1 }
        try await withAuth(config: config, directory: directory) { client in try await body(client, directory) }
    }

    func challenge(_ client: any TestClientProtocol, _ token: String) async throws -> String {
        try await client.request(.post, "/v1/me/attestation/challenges", token: token).json(AttestationChallenge.self)
            .challenge
    }

    func register(
        _ client: any TestClientProtocol, _ token: String, _ fixture: AppAttestFixture,
        make: (String) throws -> String
    ) async throws -> TestResponse {
        let challenge = try await challenge(client, token)
        return try await client.post(
            "/v1/me/attestation/keys",
            AttestationKeyRegistration(keyId: fixture.keyID, attestation: try make(challenge), challenge: challenge),
            token: token)
    }

    func assert(
        _ client: any TestClientProtocol, _ token: String, keyID: String, challenge: String? = nil,
        make: (String) throws -> String
    ) async throws -> TestResponse {
        var challenge = challenge
        if challenge == nil { challenge = try await self.challenge(client, token) }
        let text = challenge ?? ""
        return try await client.post(
            "/v1/me/attestation/assertions",
            AttestationAssertion(keyId: keyID, assertion: try make(text), challenge: text), token: token)
    }

    @Test func aRegisteredKeyAssertsAndTheSessionIsAttested() async throws {
        let device = try AppAttestFixture()
        try await withAttestation(device) { client, directory in
            let alice = try await client.signUp("alice@example.com")
            let registered = try await register(client, alice.accessToken, device) {
                try device.attestation(challenge: $0)
            }
            #expect(registered.status == .created)
            let key = try registered.json(AttestedKeySummary.self)
            #expect(key.keyId == device.keyID && key.appId == device.appID && key.environment == "production")
            let listed = try await client.get("/v1/me/attestation/keys", token: alice.accessToken)
                .json(Page<AttestedKeySummary>.self).items
            #expect(listed.map(\.keyId) == [device.keyID])

            func attestedAt() throws -> Date? {
                try directory.authDatabase().read { db in
                    try Date.fetchOne(db, sql: "SELECT attested_at FROM session WHERE attested_at IS NOT NULL")
                }
            }
            #expect(try attestedAt() == nil)
            let first = try await assert(client, alice.accessToken, keyID: device.keyID) {
                try device.assertion(challenge: $0, counter: 1)
            }
            #expect(first.status == .ok)
            let attested = try first.json(SessionAttestation.self)
            #expect(attested.keyId == device.keyID)
            #expect(try attestedAt() != nil)
            #expect(
                try await assert(client, alice.accessToken, keyID: device.keyID) {
                    try device.assertion(challenge: $0, counter: 5)
                }.status == .ok)

            // A replayed counter (the same, or lower) is refused, and so is a challenge used twice.
            for counter: UInt32 in [5, 2] {
                let replayed = try await assert(client, alice.accessToken, keyID: device.keyID) {
                    try device.assertion(challenge: $0, counter: counter)
                }
                #expect(replayed.status == .conflict && replayed.error?.code == .assertionReplayed)
            }
            let used = try await challenge(client, alice.accessToken)
            _ = try await assert(client, alice.accessToken, keyID: device.keyID, challenge: used) {
                try device.assertion(challenge: $0, counter: 6)
            }
            let again = try await assert(client, alice.accessToken, keyID: device.keyID, challenge: used) {
                try device.assertion(challenge: $0, counter: 7)
            }
            #expect(again.status == .badRequest && again.error?.code == .attestationChallengeInvalid)

            // Signed by another device's key, or for another app: refused with their codes.
            let other = try AppAttestFixture()
            let forged = try await assert(client, alice.accessToken, keyID: device.keyID) {
                try other.assertion(challenge: $0, counter: 50)
            }
            #expect(forged.status == .unprocessableContent && forged.error?.code == .assertionInvalid)
            let otherApp = try await assert(client, alice.accessToken, keyID: device.keyID) {
                try device.assertion(challenge: $0, counter: 51, appID: "OTHERTEAM1.com.example.clone")
            }
            #expect(otherApp.error?.code == .attestationAppMismatch)
            let garbage = try await assert(client, alice.accessToken, keyID: device.keyID) { _ in
                Data("not cbor".utf8).base64EncodedString()
            }
            #expect(garbage.error?.code == .assertionInvalid)

            // The key is Alice's: for Bob it does not exist; registering it again is a conflict.
            let bob = try await client.signUp("bob@example.com")
            let bobs = try await assert(client, bob.accessToken, keyID: device.keyID) {
                try device.assertion(challenge: $0, counter: 100)
            }
            #expect(bobs.status == .notFound)
            #expect(
                try await register(client, alice.accessToken, device) { try device.attestation(challenge: $0) }.status
                    == .conflict)
            // Another session's challenge is not this session's.
            let bobsChallenge = try await challenge(client, bob.accessToken)
            let crossed = try await assert(client, alice.accessToken, keyID: device.keyID, challenge: bobsChallenge) {
                try device.assertion(challenge: $0, counter: 101)
            }
            #expect(crossed.error?.code == .attestationChallengeInvalid)
        }
    }

    @Test func forgedOrForeignAttestationsAreRefused() async throws {
        let device = try AppAttestFixture()
        try await withAttestation(device) { client, _ in
            let token = try await client.signUp("alice@example.com").accessToken
            let cases: [(String, (String) throws -> String, ErrorCode)] = [
                (
                    "another app", { try device.attestation(challenge: $0, appID: "OTHERTEAM1.com.example.clone") },
                    .attestationAppMismatch
                ),
                (
                    "a leaf another authority signed", { try device.attestation(challenge: $0, forgedBy: true) },
                    .attestationInvalid
                ),
                (
                    "a nonce over another challenge", { _ in try device.attestation(challenge: "something else") },
                    .attestationInvalid
                ),
                (
                    "the development environment",
                    { try device.attestation(challenge: $0, environment: "development") },
                    .attestationInvalid
                ),
                ("not CBOR", { _ in Data([0xff, 0x00]).base64EncodedString() }, .attestationInvalid),
            ]
            for (what, make, code) in cases {
                let response = try await register(client, token, device, make: make)
                #expect(response.status == .unprocessableContent, "\(what)")
                #expect(response.error?.code == code, "\(what)")
            }
            // Another device's attestation under this key id does not name this key.
            let other = try AppAttestFixture()
            let challenge = try await challenge(client, token)
            let mismatched = try await client.post(
                "/v1/me/attestation/keys",
                AttestationKeyRegistration(
                    keyId: device.keyID, attestation: try other.attestation(challenge: challenge),
                    challenge: challenge), token: token)
            #expect(mismatched.error?.code == .attestationInvalid)
            // Nothing was registered by any of those; an assertion for the key finds nothing.
            #expect(
                try await client.get("/v1/me/attestation/keys", token: token).json(Page<AttestedKeySummary>.self)
                    .items.isEmpty)
            #expect(
                try await assert(client, token, keyID: device.keyID) { try device.assertion(challenge: $0, counter: 1) }
                    .status == .notFound)
            let malformed = try await client.post(
                "/v1/me/attestation/keys",
                AttestationKeyRegistration(keyId: "short", attestation: "AA==", challenge: "x"), token: token)
            #expect(malformed.status == .badRequest)
        }
    }

    @Test func developmentKeysNeedTheDevelopmentEnvironment() async throws {
        let device = try AppAttestFixture()
        try await withAttestation(device, environment: "development") { client, _ in
            let token = try await client.signUp("alice@example.com").accessToken
            let response = try await register(client, token, device) {
                try device.attestation(challenge: $0, environment: "development")
            }
            #expect(response.status == .created)
            #expect(try response.json(AttestedKeySummary.self).environment == "development")
        }
    }

    @Test func appAttestIsOffUntilAnAppIsNamed() async throws {
        try await withAuth(config: fastHashing) { client in
            let token = try await client.signUp("alice@example.com").accessToken
            let response = try await client.request(.post, "/v1/me/attestation/challenges", token: token)
            #expect(response.status == .notFound)
        }
    }

    @Test func theBuiltInRootIsApplesAppAttestationRootCA() throws {
        let root = try Certificate(pemEncoded: AppAttestRoot.applePEM)
        var serializer = DER.Serializer()
        try serializer.serialize(root)
        let fingerprint = SHA256.hash(data: serializer.serializedBytes).map { String(format: "%02x", $0) }.joined()
        #expect(fingerprint == "1cb9823ba28ba6ad2d33a006941de2ae4f513ef1d4e831b9f7e0fa7b6242c932")
        #expect(root.subject.description.contains("Apple App Attestation Root CA"))
    }

    @Test func cborReadsWhatItWritesAndRefusesTheRest() throws {
        let encoded = CBORWriter.map([
            "fmt": .text("apple-appattest"), "n": .unsigned(70_000), "neg": .negative(9), "ok": .bool(true),
            "none": .null, "list": .array([.bytes(Data([1, 2, 3])), .text("ü"), .unsigned(1 << 40)]),
        ]).encoded()
        #expect(
            try CBOR.decode(encoded)
                == .map([
                    "fmt": .text("apple-appattest"), "n": .unsigned(70_000), "neg": .negative(9), "ok": .bool(true),
                    "none": .null, "list": .array([.bytes(Data([1, 2, 3])), .text("ü"), .unsigned(1 << 40)]),
                ]))
        #expect(throws: CBOR.Malformed.self) { try CBOR.decode(encoded.dropLast()) }
        #expect(throws: CBOR.Malformed.self) { try CBOR.decode(encoded + Data([0])) }
        // An indefinite-length array, a float, a map keyed by a number, a 2^63-byte string.
        for bytes: [UInt8] in [
            [0x9f, 0x01, 0xff], [0xf9, 0x3c, 0x00], [0xa1, 0x01, 0x02], [0x5b, 0x80, 0, 0, 0, 0, 0, 0, 0],
        ] {
            #expect(throws: CBOR.Malformed.self) { try CBOR.decode(Data(bytes)) }
        }
        let deep = Data(repeating: 0x81, count: CBOR.maxDepth + 1) + Data([0x00])
        #expect(throws: CBOR.Malformed.self) { try CBOR.decode(deep) }
    }
}
