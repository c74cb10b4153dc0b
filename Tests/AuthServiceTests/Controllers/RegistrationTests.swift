import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import AuthService
@testable import ServiceHTTP
@testable import ServiceStore

@Suite struct RegistrationTests {
    @Test func aTakenAddressGetsExactlyTheSameAnswerAsAFreeOne() async throws {
        try await withAuth { client in
            let first = try await client.post(
                "/v1/auth/register", RegisterRequest(email: "alice@example.com", password: "first password"))
            let again = try await client.post(
                "/v1/auth/register", RegisterRequest(email: "ALICE@example.com ", password: "second password"))
            #expect(first.status == .accepted)
            #expect(again.status == first.status)
            #expect(again.body == first.body)
            #expect(again.headers[.contentType] == first.headers[.contentType])
            #expect(again.headers[.contentLength] == first.headers[.contentLength])
            // The account keeps its first password.
            #expect(
                try await client.post(
                    "/v1/auth/login", LoginRequest(email: "alice@example.com", password: "first password")
                ).status == .ok)
            #expect(
                try await client.post(
                    "/v1/auth/login", LoginRequest(email: "alice@example.com", password: "second password")
                ).status == .unauthorized)
        }
    }

    @Test(arguments: [
        (#"{"email":"not-an-email","password":"long enough"}"#, ErrorCode.validationFailed),
        (#"{"email":"a@b","password":"long enough"}"#, .validationFailed),
        (#"{"email":"a@example.com","password":"short"}"#, .validationFailed),
        (#"{"email":"a@example.com","password":"\#(String(repeating: "p", count: 1025))"}"#, .validationFailed),
        (#"{"email":"a@example.com","password":"long enough","displayName":""}"#, .validationFailed),
        (
            #"{"email":"a@example.com","password":"long enough","displayName":"\#(String(repeating: "n", count: 51))"}"#,
            .validationFailed
        ),
        (#"{"email":"a@example.com","password":"long enough","displayName":"two\nlines"}"#, .validationFailed),
        (#"{"email":"a@example.com"}"#, .malformedRequest),
        (#"{"email":42,"password":"long enough"}"#, .malformedRequest),
        ("[]", .malformedRequest),
        ("", .malformedRequest),
    ])
    func badRegistrationsAre400sAndCreateNothing(body: String, code: ErrorCode) async throws {
        try await withAuth { client in
            let response = try await client.execute(
                uri: "/v1/auth/register", method: .post, body: ByteBuffer(string: body))
            #expect(response.status == .badRequest)
            #expect(response.error?.code == code)
            #expect(response.error?.message.isEmpty == false)
            let login = try await client.post(
                "/v1/auth/login", LoginRequest(email: "a@example.com", password: "long enough"))
            #expect(login.status == .unauthorized)
        }
    }

    @Test func passwordsAreNeverTruncatedAndCompareAfterUnicodeNormalisation() async throws {
        try await withAuth { client in
            let long = String(repeating: "x", count: 100)
            _ = try await client.post("/v1/auth/register", RegisterRequest(email: "long@example.com", password: long))
            let sameStart = String(repeating: "x", count: 99) + "y"
            #expect(
                try await client.post("/v1/auth/login", LoginRequest(email: "long@example.com", password: sameStart))
                    .status == .unauthorized)
            #expect(
                try await client.post("/v1/auth/login", LoginRequest(email: "long@example.com", password: long)).status
                    == .ok)

            _ = try await client.post(
                "/v1/auth/register", RegisterRequest(email: "cafe@example.com", password: "caf\u{00E9} au lait"))
            let decomposed = "cafe\u{0301} au lait"
            #expect(
                try await client.post("/v1/auth/login", LoginRequest(email: "cafe@example.com", password: decomposed))
                    .status == .ok)
        }
    }

    /// Lengths are Unicode code points, as the API document's `minLength`/`maxLength` count
    /// them; a blank display name is one left out; Unicode's other line breaks become spaces.
    @Test func namesAndPasswordsAreCountedAsTheDocumentCountsThem() async throws {
        try await withAuth { client in
            // Four accented letters typed decomposed: eight code points, so long enough.
            let decomposed = String(repeating: "e\u{0301}", count: 4)
            #expect(
                try await client.post(
                    "/v1/auth/register", RegisterRequest(email: "accents@example.com", password: decomposed)
                ).status == .accepted)
            #expect(
                try await client.post(
                    "/v1/auth/login",
                    LoginRequest(email: "accents@example.com", password: "\u{00E9}\u{00E9}\u{00E9}\u{00E9}")
                ).status == .ok)

            func storedName(_ displayName: String, _ email: String) async throws -> String {
                let registered = try await client.post(
                    "/v1/auth/register",
                    RegisterRequest(email: email, password: "long enough", displayName: displayName))
                #expect(registered.status == .accepted)
                let tokens = try await client.post(
                    "/v1/auth/login", LoginRequest(email: email, password: "long enough")
                ).json(TokenResponse.self)
                return try await client.get("/v1/me", token: tokens.accessToken).json(UserProfile.self).displayName
            }
            let blank = try await storedName("   ", "blank.name@example.com")
            #expect(blank == "blank.name")
            let separated = try await storedName(" Ada\u{2028}Lovelace ", "ada@example.com")
            #expect(separated == "Ada Lovelace")
            // An emoji family is three code points: sixteen of them and two letters are fifty,
            // and one letter more is too long, though it reads as nineteen characters.
            let families = String(repeating: "\u{1F469}\u{200D}\u{1F467}", count: 16)
            let fifty = try await storedName(families + "ab", "family@example.com")
            #expect(fifty == families + "ab")
            #expect(
                try await client.post(
                    "/v1/auth/register",
                    RegisterRequest(
                        email: "families@example.com", password: "long enough", displayName: families + "abc")
                ).status == .badRequest)
        }
    }

    @Test func aRepeatedRegistrationWithTheSameIdempotencyKeyIsReplayed() async throws {
        try await withAuth { client in
            let body = RegisterRequest(email: "idem@example.com", password: "long enough")
            let first = try await client.post("/v1/auth/register", body, headers: [.idempotencyKey: "register-1"])
            let second = try await client.post("/v1/auth/register", body, headers: [.idempotencyKey: "register-1"])
            #expect(first.status == .accepted)
            #expect(second.status == .accepted)
            #expect(second.body == first.body)
            #expect(second.headers[.idempotentReplayed] == "true")
        }
    }

    @Test func hashesUseArgon2idAndAreUpgradedWhenTheCostChanges() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(
            config: ["auth.argon2.memoryKib": "8192", "auth.argon2.iterations": "1"], directory: directory
        ) { client in
            _ = try await client.post(
                "/v1/auth/register", RegisterRequest(email: "up@example.com", password: "long enough"))
        }
        func storedHash() throws -> String? {
            let queue = try DatabaseQueue(path: directory.url.appendingPathComponent("auth/auth.sqlite").path)
            return try queue.read { db in try String.fetchOne(db, sql: "SELECT password_hash FROM user") }
        }
        #expect(try storedHash()?.hasPrefix("$argon2id$v=19$m=8192,t=1,p=1$") == true)
        try await withAuth(directory: directory) { client in
            let login = try await client.post(
                "/v1/auth/login", LoginRequest(email: "up@example.com", password: "long enough"))
            #expect(login.status == .ok)
        }
        #expect(try storedHash()?.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$") == true)
    }
}
