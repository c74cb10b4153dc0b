import AsyncHTTPClient
import Crypto
import Foundation
import GRDB
import NIOHTTP1
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

extension SliceFlow {
    /// Account deletion end to end: Dora leaves traces in every service (photos, a post, votes,
    /// a streak with snaps, a report, a block, notifications she caused), deletes her account,
    /// and once every service has confirmed, no table of any service and no blob holds
    /// anything of hers. Eve's post keeps its own votes, minus Dora's.
    func deletionLeavesNothingBehind() async throws {
        let dora = try await signUp("Dora")
        let eve = try await signUp("Eve")
        let doraPhoto = TestImages.jpeg(seed: 91)
        let doraPost = try await publish(try await upload(doraPhoto, as: dora), as: dora, caption: "bye")
        let evePost = try await publish(try await upload(TestImages.jpeg(seed: 92), as: eve), as: eve, caption: "hi")
        #expect(
            try await call(.PUT, "/v1/posts/\(evePost.id)/vote", as: dora, json: VoteRequest(value: .up)).status == 200)
        #expect(
            try await call(.PUT, "/v1/posts/\(doraPost.id)/vote", as: eve, json: VoteRequest(value: .down)).status
                == 200)
        _ = try await befriend(dora, eve)
        let snap = try await upload(TestImages.jpeg(seed: 93), as: dora)
        #expect(
            try await call(.POST, "/v1/snaps", as: dora, json: SnapCreate(mediaId: snap.id, timeZone: "Europe/Madrid"))
                .status == 201)
        #expect(
            try await call(
                .POST, "/v1/reports", as: dora,
                json: ReportCreate(targetType: .post, targetId: evePost.id, reason: .spam)
            ).status == 201)
        let blocked = try await signUp("Mallory")
        #expect(try await call(.POST, "/v1/blocks", as: dora, json: BlockCreate(userId: blocked.id)).status == 201)
        #expect(try await eventually { try await notifications(of: eve).count >= 1 })
        // An upload she never finished.
        let unfinished = try await call(
            .POST, "/v1/uploads", as: dora, bytes: TestImages.jpeg(seed: 94, size: 4000).prefix(1000),
            headers: [
                ("tus-resumable", "1.0.0"), ("upload-length", "4000"),
                ("content-type", "application/offset+octet-stream"),
            ])
        #expect(unfinished.status == 201)
        let partial = stack.directory.url.appendingPathComponent(
            "media/blobs/uploads/\(unfinished.header("location")?.split(separator: "/").last ?? "")")
        #expect(FileManager.default.fileExists(atPath: partial.path))

        let deletion = try await call(
            .DELETE, "/v1/me", as: dora, json: AccountDeletionRequest(password: "correct horse battery Dora"))
        #expect(deletion.status == 202, "\(deletion.text)")
        let completed = try await eventually {
            let progress = try await call(.GET, "/v1/me/deletion", as: dora)
            return try progress.decode(AccountDeletion.self).status == .completed
        }
        #expect(completed, "every service confirmed")

        // No service keeps a row that mentions her (auth keeps only the deletion record).
        for service in ServiceName.services {
            let file = stack.directory.url.appendingPathComponent("\(service.rawValue)/\(service.rawValue).sqlite")
            let database = try DatabaseQueue(path: file.path)
            let traces = try await database.read { db in
                try db.rows(mentioning: dora.id, except: service == .auth ? ["deletion"] : [])
            }
            try database.close()
            #expect(traces.isEmpty, "\(service.rawValue) still holds \(traces)")
        }
        // Her photos are gone from the blob store; Eve's is still there.
        let blobs = stack.directory.url.appendingPathComponent("media/blobs")
        func blobExists(_ bytes: Data) -> Bool {
            let hash = Hex.encode(SHA256.hash(data: bytes))
            return FileManager.default.fileExists(
                atPath: blobs.appendingPathComponent("\(hash.prefix(2))/\(hash)").path)
        }
        #expect(!blobExists(doraPhoto))
        #expect(!blobExists(TestImages.jpeg(seed: 93)))
        #expect(blobExists(TestImages.jpeg(seed: 92)))
        #expect(!FileManager.default.fileExists(atPath: partial.path), "her unfinished upload's bytes are gone")
        let evePostNow = try await call(.GET, "/v1/posts/\(evePost.id)", as: eve).decode(Post.self)
        #expect(evePostNow.upvotes == 0)
        #expect(try await call(.GET, "/v1/posts/\(doraPost.id)", as: eve).status == 404)
    }
}
