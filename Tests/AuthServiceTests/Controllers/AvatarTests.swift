import Contracts
import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import Synchronization
import TestSupport
import Testing

@testable import AuthService

/// Avatars: only one's own processed photo, shown on every profile and summary as its
/// square thumbnail, with media told to publish it and, once replaced, to withdraw it.
@Suite struct AvatarTests {
    @Test func anAvatarIsOnesOwnReadyPhotoShownEverywhereAndMediaIsToldOfEachChange() async throws {
        let library = Mutex<[String: MediaSummary]>([:])
        let media = Lookup<MediaSummary> { id in library.withLock { $0[id] } }
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(directory: directory, media: media) { client in
            let kai = try await client.signUp("kai@example.com")
            let leo = try await client.signUp("leo@example.com")
            let kaiID = try await client.userID(of: kai)
            let leoID = try await client.userID(of: leo)
            func photo(_ n: Int, of owner: String, type: String = "image/jpeg", status: MediaStatus = .ready) -> String
            {
                let id = "5a1e0c3d-0000-4000-8000-00000000000\(n)"
                library.withLock {
                    $0[id] = MediaSummary(id: id, ownerId: owner, contentType: type, status: status)
                }
                return id
            }
            func setAvatar(_ mediaId: String, token: String = kai.accessToken) async throws -> TestResponse {
                try await client.send(.put, "/v1/me/avatar", AvatarUpdate(mediaId: mediaId), token: token)
            }
            let first = photo(1, of: kaiID)
            let second = photo(2, of: kaiID)

            // Someone else's photo, an unknown one, a video, one still processing or rejected: refused.
            #expect(try await setAvatar(photo(3, of: leoID)).status == .notFound)
            #expect(try await setAvatar("5a1e0c3d-0000-4000-8000-0000000000ff").status == .notFound)
            #expect(try await setAvatar(photo(4, of: kaiID, type: "video/mp4")).status == .badRequest)
            #expect(try await setAvatar(photo(5, of: kaiID, status: .processing)).status == .conflict)
            let rejected = try await setAvatar(photo(6, of: kaiID, status: .rejected))
            #expect(rejected.status == .unprocessableContent && rejected.error?.code == .mediaRejected)
            #expect(try await setAvatar("not-an-id").status == .badRequest)
            #expect(try await outbox(directory).isEmpty)

            // Set: the owner's profile, the public profile and the summaries all show it.
            let set = try await setAvatar(first)
            #expect(set.status == .ok)
            let thumbnail = "/v1/media/\(first)/thumbnail"
            #expect(try set.json(UserProfile.self).avatarURL == thumbnail)
            let seen = try await client.get("/v1/users/\(kaiID)", token: leo.accessToken).json(PublicProfile.self)
            #expect(seen.avatarURL == thumbnail)
            #expect(try await outbox(directory) == ["media.attached \(first) avatar \(kaiID)"])

            // The same photo again changes nothing; another one withdraws the first.
            #expect(try await setAvatar(first).status == .ok)
            #expect(try await setAvatar(second).status == .ok)
            #expect(
                try await client.get("/v1/me", token: kai.accessToken).json(UserProfile.self).avatarURL
                    == "/v1/media/\(second)/thumbnail")
            #expect(
                try await outbox(directory) == [
                    "media.attached \(first) avatar \(kaiID)", "media.detached \(first) avatar \(kaiID)",
                    "media.attached \(second) avatar \(kaiID)",
                ])

            // Removed: no avatar anywhere, and media withdraws it.
            let removed = try await client.request(.delete, "/v1/me/avatar", token: kai.accessToken)
            #expect(removed.status == .ok)
            #expect(try removed.json(UserProfile.self).avatarURL == nil)
            #expect(
                try await client.get("/v1/users/\(kaiID)", token: leo.accessToken).json(PublicProfile.self).avatarURL
                    == nil)
            #expect(try await outbox(directory).last == "media.detached \(second) avatar \(kaiID)")
        }
    }

    /// The media events auth queued, oldest first: type, media, reference.
    private func outbox(_ directory: TestDataDirectory) async throws -> [String] {
        try await directory.authDatabase().read { db in
            try Row.fetchAll(db, sql: "SELECT type, body FROM kit_outbox_event ORDER BY seq").compactMap { row in
                let body: Data = row["body"]
                switch row["type"] as String {
                case MediaAttached.eventType.rawValue:
                    let event = try JSONCoding.decoder().decode(EventEnvelope<MediaAttached>.self, from: body).payload
                    return "media.attached \(event.mediaId) \(event.referenceType) \(event.referenceId)"
                case MediaDetached.eventType.rawValue:
                    let event = try JSONCoding.decoder().decode(EventEnvelope<MediaDetached>.self, from: body).payload
                    return "media.detached \(event.mediaId) \(event.referenceType) \(event.referenceId)"
                default: return nil
                }
            }
        }
    }

    /// Streak's numbers are asked at each profile read; when streak cannot answer, the profile
    /// is served without them.
    @Test func aProfileShowsStreaksNumbersWhenStreakAnswers() async throws {
        let numbers = StreakProfileStats(activeStreaks: 2, longestStreak: 30, totalSnaps: 41)
        let answering = Mutex<String?>(nil)
        let streakStats = Lookup<StreakProfileStats> { id in
            guard let expected = answering.withLock({ $0 }) else {
                throw ServiceError(.upstreamUnavailable, "streak is down")
            }
            return id == expected ? numbers : nil
        }
        try await withAuth(streakStats: streakStats) { client in
            let kai = try await client.signUp("kai@example.com")
            let leo = try await client.signUp("leo@example.com").accessToken
            let kaiID = try await client.userID(of: kai)
            let down = try await client.get("/v1/users/\(kaiID)", token: leo)
            #expect(down.status == .ok)
            #expect(try down.json(PublicProfile.self).stats.streak == nil)
            answering.withLock { $0 = kaiID }
            #expect(
                try await client.get("/v1/users/\(kaiID)", token: leo).json(PublicProfile.self).stats.streak == numbers)
            let leoID = try await client.userID(of: try await client.signUp("leo2@example.com"))
            #expect(try await client.get("/v1/users/\(leoID)", token: leo).json(PublicProfile.self).stats.streak == nil)
        }
    }
}
