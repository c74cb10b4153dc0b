import Foundation
import OpenAPIAsyncHTTPClient
import PinholeClient
import Synchronization
import TestSupport
import Testing

/// An Unum session through `PinholeClient`, the Swift client generated from the API document,
/// as an iOS app would use it (over AsyncHTTPClient here, trusting the stack's authority): sign
/// up and in; a photo by tus with the app killed after the first chunk and the upload resumed
/// from the server's offset; a post at a place, found nearby and voted on; the access token
/// refused under five requests at once and refreshed once for all; sign out. Every answer is
/// decoded by the generated types, so a change to the API that breaks clients breaks this.
struct ClientFlow {
    let flow: SliceFlow

    /// Counts what the client saves: one refresh is one save.
    actor CountingTokenStore: TokenStore {
        var tokens: TokenPair?
        var saves = 0
        func load() -> TokenPair? { tokens }
        func save(_ tokens: TokenPair) {
            self.tokens = tokens
            saves += 1
        }
        func clear() { tokens = nil }
    }

    struct AppKilled: Error {}

    func client(_ tokens: any TokenStore) throws -> PinholeClient {
        PinholeClient(
            serverURL: try #require(URL(string: flow.stack.url(""))), tokens: tokens,
            transport: AsyncHTTPClientTransport(configuration: .init(client: flow.stack.client)))
    }

    func run() async throws {
        let tokens = CountingTokenStore()
        let pinhole = try client(tokens)
        let email = "una-\(UInt32.random(in: 0...UInt32.max))@example.com"
        let registered = try await pinhole.api.register(
            body: .json(.init(email: email, password: "correct horse battery")))
        #expect(try registered.accepted.body.json.status == .accepted)
        try await pinhole.signIn(email: email, password: "correct horse battery")
        let me = try await pinhole.api.me().ok.body.json

        // A photo by tus; the app is killed once its first KiB is durable, and its next
        // launch, knowing only the upload's id, asks the server where to go on from.
        let photo = TestImages.jpeg(seed: 43, gps: false)
        #expect(photo.count > 2048, "the photo must take several chunks")
        let started = try await pinhole.startUpload(
            length: photo.count, contentType: "image/jpeg", filename: "pier.jpg")
        let heard = Mutex<ResumableUpload?>(nil)
        await #expect(throws: AppKilled.self) {
            _ = try await pinhole.send(photo, to: started, chunkSize: 1024) { progress in
                heard.withLock { $0 = progress }
                throw AppKilled()
            }
        }
        #expect(heard.withLock { $0?.offset } == 1024)
        let resumed = try await pinhole.resumePoint(of: started)
        #expect(resumed.offset == 1024 && resumed.length == photo.count)
        let mediaID = try await pinhole.send(photo, to: resumed, chunkSize: 1024)
        #expect(
            await flow.eventually {
                (try? await pinhole.api.getMedia(path: .init(id: mediaID)).ok.body.json.status) == .ready
            }, "the tus upload never became a ready photo")

        // Unum's post at a place; nearby finds it; a vote counts.
        let post = try await pinhole.api.createPost(
            body: .json(
                .init(
                    mediaId: mediaID, caption: "Through the client", latitude: flow.here.lat, longitude: flow.here.lon))
        ).created.body.json
        #expect(post.authorId == me.id && post.caption == "Through the client")
        let nearby = try await pinhole.api.nearby(query: .init(lat: flow.here.lat, lon: flow.here.lon, radiusM: 5000))
            .ok.body.json
        // Unum's map sheet draws each card from that one answer (who posted it, the photo's shape
        // and placeholder, URLs an image loader fetches with no token: the download button), and
        // a marker's callout on the map from the clusters' answer.
        let card = try #require(nearby.items.first { $0.id == post.id })
        #expect(card.author?.id == me.id && card.author?.displayName == me.displayName)
        let shown = try #require(card.media?.first)
        #expect(shown.id == mediaID && shown.placeholder != nil && shown.aspectRatio != nil)
        #expect(try await flow.call(.GET, try #require(shown.displayURL)).status == 200)
        let box = (minLat: flow.here.lat - 0.01, minLon: flow.here.lon - 0.01, maxLat: flow.here.lat + 0.01)
        var callout: (author: String?, thumbnail: String?)?
        #expect(
            await flow.eventually {
                let map = try? await pinhole.api.mapClusters(
                    query: .init(
                        minLat: box.minLat, minLon: box.minLon, maxLat: box.maxLat, maxLon: flow.here.lon + 0.01,
                        zoom: 20)
                ).ok.body.json
                callout = map?.posts.first { $0.id == post.id }.map { ($0.author?.id, $0.media?.first?.thumbnailURL) }
                return callout != nil
            }, "the post never showed as a marker on the map")
        #expect(callout?.author == me.id && callout?.thumbnail != nil)
        let voted = try await pinhole.api.vote(path: .init(id: post.id), body: .json(.init(value: .up))).ok.body.json
        #expect(voted.upvotes == 1 && voted.score == 1)

        // The access token is refused under five requests at once: the client exchanges the
        // refresh token once, and all five go through with the new pair.
        let signedIn = try #require(await tokens.load())
        await tokens.save(TokenPair(accessToken: "no-longer-valid", refreshToken: signedIn.refreshToken))
        let savesBefore = await tokens.saves
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<5 { group.addTask { try await pinhole.api.me().ok.body.json.id } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(ids == Array(repeating: me.id, count: 5))
        #expect(await tokens.saves == savesBefore + 1, "one refresh for five refused requests")
        let refreshed = try #require(await tokens.load())
        #expect(refreshed.refreshToken != signedIn.refreshToken && refreshed.accessToken != "no-longer-valid")

        // Signing out ends the session at the server: a copy of its tokens is refused, and the
        // client holding it forgets them.
        try await pinhole.signOut()
        #expect(await tokens.load() == nil)
        let copy = InMemoryTokenStore(refreshed)
        let stale = try client(copy)
        let refused = try await stale.api.me()
        guard case .unauthorized(let answer) = refused else {
            Issue.record("a signed-out session still answered \(refused)")
            return
        }
        #expect(try answer.body.json.error.code.rawValue == "INVALID_TOKEN")
        #expect(await copy.load() == nil, "the client kept tokens the server refused")
    }
}
