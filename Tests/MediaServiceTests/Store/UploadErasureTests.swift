import Foundation
import GRDB
import HummingbirdTesting
import ServiceStore
import TestSupport
import Testing

@testable import MediaService

/// `user.deleted` and the growing files of a user's unfinished uploads.
@Suite struct UploadErasureTests {
    struct Abandoned: Error {}

    @Test func anUnfinishedUploadsFileGoesOnlyOnceTheErasureCommits() async throws {
        try await TestMedia.withParts { harness, processor, client in
            let alice = try await harness.token(for: UploadsRouterTests.alice)
            let location = try #require(
                try await UploadsRouterTests().create(client, token: alice, length: 4096).headers[.location])
            let id = try #require(location.split(separator: "/").last.map(String.init))
            let files = try UploadFiles(blobDirectory: harness.directory.url.appendingPathComponent("media/blobs"))
            #expect(FileManager.default.fileExists(atPath: files.url(id).path))
            let group = GroupCommit.shared(for: processor.store.database)
            let erase = { @Sendable (db: Database) throws in
                try MediaStore.erase(
                    userID: UploadsRouterTests.alice, blobs: processor.blobs, uploads: files, in: db)
            }

            // The erasure fails after its deletes: the row stays, and so does its file.
            await #expect(throws: Abandoned.self) {
                try await group.write { db in
                    try erase(db)
                    throw Abandoned()
                }
            }
            #expect(try await processor.store.database.read { try UploadRecord.fetchCount($0) } == 1)
            #expect(FileManager.default.fileExists(atPath: files.url(id).path))

            try await group.write(erase)
            #expect(try await processor.store.database.read { try UploadRecord.fetchCount($0) } == 0)
            #expect(!FileManager.default.fileExists(atPath: files.url(id).path))
        }
    }
}
