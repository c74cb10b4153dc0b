import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import TestSupport
import Testing

@testable import AuthService

/// Who may do what: forged tokens, guests, roles and the admin routes.
@Suite struct AccessTests {
    @Test func thirtyForgedOrMalformedTokensAreAllRefused() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(directory: directory) { client in
            let real = try await client.signUp("real@example.com")
            let userID = try await client.userID(of: real)
            let tokens = try TestTokens(dataDirectory: directory.url)
            let parts = real.accessToken.split(separator: ".").map(String.init)
            let otherSignature = try await tokens.signed(subject: "other").split(separator: ".")[2]
            let json = { (text: String) in Base64URL.encode(Data(text.utf8)) }
            let bad: [(String, String)] = [
                ("forged signature", try await tokens.forged(subject: userID)),
                ("alg none", tokens.unsigned(subject: userID)),
                ("HS256 confusion", tokens.hmacConfused(subject: userID)),
                ("expired", try await tokens.signed(subject: userID, issuedAt: Date().addingTimeInterval(-3600))),
                ("not yet valid", try await tokens.signed(subject: userID, notBefore: Date().addingTimeInterval(600))),
                ("wrong audience", try await tokens.signed(subject: userID, audience: "other-api")),
                ("wrong issuer", try await tokens.signed(subject: userID, issuer: "evil")),
                ("made-up session", try await tokens.signed(subject: userID, sessionID: real.sessionId.reversedUUID)),
                ("someone else's session", try await tokens.signed(subject: "mallory", sessionID: real.sessionId)),
                ("empty subject", try await tokens.signed(subject: "", sessionID: real.sessionId)),
                ("empty session", try await tokens.signed(subject: userID, sessionID: "")),
                ("empty", ""),
                ("one part", parts[0]),
                ("two parts", parts[0] + "." + parts[1]),
                ("four parts", real.accessToken + ".x"),
                ("garbage", "not.a.token"),
                ("payload swapped", parts[0] + "." + json(#"{"sub":"mallory"}"#) + "." + parts[2]),
                ("signature stripped", parts[0] + "." + parts[1] + "."),
                ("signature truncated", parts[0] + "." + parts[1] + "." + parts[2].dropLast(4)),
                ("signature of another token", parts[0] + "." + parts[1] + "." + otherSignature),
                ("header not JSON", json("{alg") + "." + parts[1] + "." + parts[2]),
                ("header not base64", "!!!." + parts[1] + "." + parts[2]),
                ("unknown kid", json(#"{"alg":"ES256","kid":"nope"}"#) + "." + parts[1] + "." + parts[2]),
                ("no kid", json(#"{"alg":"ES256"}"#) + "." + parts[1] + "." + parts[2]),
                ("EdDSA header", json(#"{"alg":"EdDSA","kid":"\#(tokens.keyID)"}"#) + "." + parts[1] + "." + parts[2]),
                ("RS256 header", json(#"{"alg":"RS256","kid":"\#(tokens.keyID)"}"#) + "." + parts[1] + "." + parts[2]),
                (
                    "lower-case alg",
                    json(#"{"alg":"es256","kid":"\#(tokens.keyID)"}"#) + "." + parts[1] + "." + parts[2]
                ),
                ("huge", String(repeating: "a", count: 9000) + "." + parts[1] + "." + parts[2]),
                ("spaces", parts[0] + ". " + parts[1] + "." + parts[2]),
                ("a refresh token", real.refreshToken),
            ]
            #expect(bad.count == 30)
            for (name, token) in bad {
                let response = try await client.get("/v1/me", token: token)
                #expect(response.status == .unauthorized, "\(name)")
                #expect(
                    [ErrorCode.invalidToken, .authenticationRequired].contains(response.error?.code), "\(name)")
            }
            #expect(try await client.get("/v1/me", token: real.accessToken).status == .ok)
        }
    }

    @Test func guestsGetAReadOnlyTokenThatCannotChangeAnything() async throws {
        try await withAuth { client in
            let response = try await client.execute(uri: "/v1/auth/guest", method: .post)
            #expect(response.status == .ok)
            let guest = try response.json(GuestTokenResponse.self)
            #expect(guest.expiresIn == 900)
            // A guest has no profile and no sessions, and every write is refused.
            #expect(try await client.get("/v1/me", token: guest.accessToken).error?.code == .guestReadOnly)
            #expect(try await client.get("/v1/auth/sessions", token: guest.accessToken).error?.code == .guestReadOnly)
            let logout = try await client.execute(
                uri: "/v1/auth/logout", method: .post, headers: [.authorization: "Bearer \(guest.accessToken)"])
            #expect(logout.error?.code == .guestReadOnly)
            let admin = try await client.post("/v1/admin/tenants", TenantCreate(name: "x"), token: guest.accessToken)
            #expect(admin.error?.code == .guestReadOnly)
        }
        try await withAuth(config: ["auth.guestTokens": "false"]) { client in
            let response = try await client.execute(uri: "/v1/auth/guest", method: .post)
            #expect(response.status == .notFound)
        }
    }

    @Test func adminsGrantAndRevokeRolesAndOthersCannot() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(directory: directory) { client in
            let admin = try await client.signUp("admin@example.com")
            let adminID = try await client.userID(of: admin)
            let user = try await client.signUp("user@example.com")
            let userID = try await client.userID(of: user)

            // Not an admin yet: the admin routes are forbidden.
            let early = try await client.post(
                "/v1/admin/roles", RoleChange(userId: userID, role: .moderator), token: admin.accessToken)
            #expect(early.error?.code == .forbidden)

            try directory.grant(.admin, to: adminID)
            let granted = try await client.post(
                "/v1/admin/roles", RoleChange(userId: userID, role: .moderator), token: admin.accessToken)
            #expect(granted.status == .ok)
            #expect(try granted.json(UserRoles.self).roles == [RoleGrant(role: .moderator)])
            // The user sees it at once, without signing in again.
            let profile = try await client.get("/v1/me", token: user.accessToken).json(UserProfile.self)
            #expect(profile.roles == [RoleGrant(role: .moderator)])
            // A moderator is not an admin.
            #expect(
                try await client.post("/v1/admin/tenants", TenantCreate(name: "T"), token: user.accessToken).error?.code
                    == .forbidden)

            let bad: [RoleChange] = [
                RoleChange(userId: userID, role: .user),
                RoleChange(userId: userID, role: .tenantAdmin),
                RoleChange(userId: userID, role: .moderator, tenantId: UUID().uuidString),
                RoleChange(userId: "nobody", role: .moderator),
                RoleChange(role: .moderator),
            ]
            for change in bad {
                #expect(
                    try await client.post("/v1/admin/roles", change, token: admin.accessToken).status == .badRequest,
                    "\(change)")
            }
            let unknownUser = try await client.post(
                "/v1/admin/roles", RoleChange(userId: UUID().uuidString, role: .moderator), token: admin.accessToken)
            #expect(unknownUser.status == .notFound)
            let unknownTenant = try await client.post(
                "/v1/admin/roles", RoleChange(userId: userID, role: .tenantAdmin, tenantId: UUID().uuidString),
                token: admin.accessToken)
            #expect(unknownTenant.status == .notFound)
            let selfDemotion = try await client.post(
                "/v1/admin/roles/revoke", RoleChange(userId: adminID, role: .admin), token: admin.accessToken)
            #expect(selfDemotion.status == .conflict)

            let revoked = try await client.post(
                "/v1/admin/roles/revoke", RoleChange(userId: userID, role: .moderator), token: admin.accessToken)
            #expect(try revoked.json(UserRoles.self).roles.isEmpty)
            #expect(try await client.get("/v1/me", token: user.accessToken).json(UserProfile.self).roles.isEmpty)
        }
    }
}

extension String {
    /// Another well-formed UUID: this one with its hex digits reversed.
    var reversedUUID: String {
        let hex = String(filter { $0 != "-" }.reversed())
        let parts = [8, 4, 4, 4, 12].reduce(into: (parts: [String](), rest: Substring(hex))) { state, length in
            state.parts.append(String(state.rest.prefix(length)))
            state.rest = state.rest.dropFirst(length)
        }
        return parts.parts.joined(separator: "-")
    }
}
