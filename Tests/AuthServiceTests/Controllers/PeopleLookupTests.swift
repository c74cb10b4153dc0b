import Contracts
import Foundation
import GRDB
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import Synchronization
import TestSupport
import Testing

@testable import AuthService

/// `GET /v1/users?ids=`: the people an app has cached ids of, as list entries with their
/// avatars' views, in the order asked; whoever the caller may not see is left out.
@Suite struct PeopleLookupTests {
    @Test func peopleComeInTheOrderAskedWithAvatarsAndWithoutThoseNotToBeShown() async throws {
        let library = Mutex<[String: MediaSummary]>([:])
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(
            config: fastHashing, directory: directory, media: Lookup { id in library.withLock { $0[id] } }
        ) { client in
            var tokens: [String: TokenResponse] = [:]
            var ids: [String: String] = [:]
            for name in ["Ann", "Bo", "Cy", "Dee", "Me"] {
                let email = "\(name.lowercased())@example.com"
                _ = try await client.post(
                    "/v1/auth/register",
                    RegisterRequest(
                        email: email, password: "correct horse battery", displayName: name,
                        username: name.lowercased() + "_x"))
                tokens[name] = try await client.post(
                    "/v1/auth/login", LoginRequest(email: email, password: "correct horse battery")
                ).json(TokenResponse.self)
                ids[name] = try await client.userID(of: tokens[name]!)
            }
            let (ann, bo, cy, dee) = (ids["Ann"]!, ids["Bo"]!, ids["Cy"]!, ids["Dee"]!)
            let (me, meID) = (tokens["Me"]!.accessToken, ids["Me"]!)

            // Ann's avatar, ready at media and in auth's copy of media.
            let photo = "5a1e0c3d-0000-4000-8000-0000000000a1"
            let summary = MediaSummary(id: photo, ownerId: ann, contentType: "image/jpeg", status: .ready)
            library.withLock { $0[photo] = summary }
            let set = try await client.send(
                .put, "/v1/me/avatar", AvatarUpdate(mediaId: photo), token: tokens["Ann"]!.accessToken)
            #expect(set.status == .ok)
            _ = try await directory.authDatabase().write { db in
                try MediaMirror.apply(ServiceHarness.described(summary), in: db)
            }

            func people(_ query: String, token: String = me) async throws -> [PersonView] {
                let response = try await client.get("/v1/users?ids=\(query)", token: token)
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                return try response.json(Page<PersonView>.self).items
            }
            let unknown = "00000000-0000-4000-8000-0000000000ff"
            let found = try await people([bo, ann, unknown, bo, cy].joined(separator: ","))
            #expect(found.map(\.id) == [bo, ann, cy], "in the order asked, each once, the unknown left out")
            #expect(found.map(\.displayName) == ["Bo", "Ann", "Cy"])
            #expect(found[1].username == "ann_x")
            #expect(found[1].avatar?.thumbnailURL?.hasPrefix("/v1/media/views/\(photo)/thumbnail?exp=") == true)
            #expect(found[1].avatarURL == "/v1/media/\(photo)/thumbnail")
            // Ann's profile shows the same avatar view as the lists.
            let profile = try await client.get("/v1/users/\(ann)", token: me).json(PublicProfile.self)
            #expect(profile.avatar == found[1].avatar && profile.avatar?.displayURL != nil)
            #expect(try await people("\(ann)&ids=\(dee)").map(\.id) == [ann, dee], "ids given more than once")

            // Cy deletes their account; Dee blocks me: neither is shown to me any more.
            let deleted = try await client.send(
                .delete, "/v1/me", AccountDeletionRequest(password: "correct horse battery"),
                token: tokens["Cy"]!.accessToken)
            #expect(deleted.status == .accepted)
            try await directory.authDatabase().write { db in
                try BlockMirror.apply(UserBlocked(blockerId: dee, blockedId: meID), in: db)
            }
            #expect(try await people([ann, cy, dee].joined(separator: ",")).map(\.id) == [ann])
            #expect(try await people(dee, token: tokens["Bo"]!.accessToken).map(\.id) == [dee])

            // None, too many, or something that is not an id: 400, naming what is wrong.
            let tooMany = (0..<101).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
            for bad in ["", "not-an-id", "\(ann),x", tooMany.joined(separator: ",")] {
                let response = try await client.get("/v1/users?ids=\(bad)", token: me)
                #expect(
                    response.status == .badRequest && response.error?.code == .validationFailed, "\(bad.prefix(20))")
            }
            #expect(try await client.get("/v1/users?ids=\(ann)").status == .unauthorized)
        }
    }
}
