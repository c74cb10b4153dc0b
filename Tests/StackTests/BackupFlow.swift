import Crypto
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore
import Synchronization
import TestSupport
import Testing

/// `pinhole backup` while people write, `pinhole restore` into a new data directory, and a
/// second stack on it.
extension SliceFlow {
    /// One acknowledged write: a photo and the post that shows it.
    struct Written: Sendable {
        let at: ContinuousClock.Instant
        let author: Person
        let post: Post
        let media: MediaObject
    }

    func backupUnderLoadRestores() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pinhole-backup-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let backup = scratch.appendingPathComponent("backup")
        let restored = scratch.appendingPathComponent("restored")

        let writers = try await [signUp("Writer1"), signUp("Writer2"), signUp("Writer3")]
        var profiles: [UserProfile] = []
        for writer in writers { profiles.append(try await call(.GET, "/v1/me", as: writer).decode(UserProfile.self)) }
        // Streak's and alerts' reads too: a friendship, and the request's notification.
        let streak = try await befriend(writers[0], writers[1])
        #expect(try await eventually { try await notifications(of: writers[1]).contains { $0.type == .friendRequest } })
        let notified = try await notifications(of: writers[1]).map(\.id)
        let written = WriteLog()
        let writing = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, writer) in writers.enumerated() {
                    group.addTask {
                        var round = 0
                        while !written.isStopped {
                            let seed = UInt8((60 + index * 60 + round) % 256)
                            let media = try await upload(TestImages.jpeg(seed: seed), as: writer)
                            let post = try await publish(media, as: writer, caption: "load \(index) \(round)")
                            written.append(Written(at: .now, author: writer, post: post, media: media))
                            round += 1
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        #expect(await eventually { written.all.count >= 6 })

        // The backup runs while the three go on writing.
        let began = ContinuousClock.now
        let backedUp = try await stack.pinhole(["backup", backup.path])
        let ended = ContinuousClock.now
        #expect(backedUp.status == 0, "\(backedUp.lines)")
        let countAtEnd = written.all.count
        #expect(await eventually { written.all.count >= countAtEnd + 3 })
        written.stop()
        try await writing.value
        let all = written.all
        let before = all.filter { $0.at < began }
        let after = all.filter { $0.at > ended }
        let during = all.count - before.count - after.count
        print("backup under load: \(backedUp.lines.joined(separator: " | "))")
        print(
            "backup under load: \(before.count) writes acknowledged before it began, \(during) while it ran, "
                + "\(after.count) after it ended")
        #expect(!before.isEmpty && !after.isEmpty)

        try await refusals(backup: backup, scratch: scratch)

        let restoredRun = try await stack.pinhole(["restore", backup.path], dataDirectory: restored)
        #expect(restoredRun.status == 0, "\(restoredRun.lines)")
        // Only into an empty data directory.
        let again = try await stack.pinhole(["restore", backup.path], dataDirectory: restored)
        #expect(again.status == 1 && again.lines.contains { $0.contains("is not empty") }, "\(again.lines)")
        for file in ["pki/ca.key", "auth/auth.sqlite", "auth/keys"] {
            let mode = try FileSystem.permissions(of: restored.appendingPathComponent(file))
            #expect(mode & 0o077 == 0, "\(file) is \(String(mode, radix: 8))")
        }

        let second = try await Stack.start(publicTLS: true, directory: TestDataDirectory(existing: restored))
        do {
            let there = SliceFlow(stack: second, document: document)
            // The same people, signed in with the same tokens (keys and sessions came along).
            for (writer, profile) in zip(writers, profiles) {
                let me = try await there.call(.GET, "/v1/me", as: writer)
                // Who they are (counts move with the writes made since the profile was read).
                let restoredProfile = try? me.decode(UserProfile.self)
                #expect(
                    me.status == 200 && restoredProfile?.id == profile.id && restoredProfile?.email == profile.email
                        && restoredProfile?.displayName == profile.displayName
                        && restoredProfile?.roles == profile.roles,
                    "\(me.text)")
            }
            let streaks = try await there.call(.GET, "/v1/streaks", as: writers[0]).decode(Page<Streak>.self)
            #expect(streaks.items.map(\.id).contains(streak.id))
            let restoredNotifications = try await there.notifications(of: writers[1]).map(\.id)
            #expect(Set(notified).isSubset(of: Set(restoredNotifications)), "\(notified) \(restoredNotifications)")
            // Every write acknowledged before the backup began, with its photo's bytes.
            for write in before {
                let post = try await there.call(.GET, "/v1/posts/\(write.post.id)", as: write.author)
                #expect(post.status == 200 && (try? post.decode(Post.self))?.mediaId == write.media.id, "\(post.text)")
                let content = try await there.call(.GET, "/v1/media/\(write.media.id)/content", as: write.author)
                let digest = SHA256.hash(data: content.body).map { String(format: "%02x", $0) }.joined()
                #expect(content.status == 200 && digest == write.media.sha256)
            }
            // What was written after the backup ended is not there: this is the backup, not a copy
            // of the live directory.
            for write in after.prefix(3) {
                #expect(try await there.call(.GET, "/v1/posts/\(write.post.id)", as: write.author).status == 404)
            }
            // The restored stack takes new writes.
            let media = try await there.upload(TestImages.jpeg(seed: 250), as: writers[0])
            #expect(try await there.publish(media, as: writers[0], caption: "after restore").mediaId == media.id)
        } catch {
            await second.stop()
            throw error
        }
        await second.stop()
    }

    /// A damaged backup and one from a newer schema are refused, and leave no data directory.
    private func refusals(backup: URL, scratch: URL) async throws {
        let latest = try String(contentsOf: backup.appendingPathComponent("latest"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let snapshot = scratch.appendingPathComponent("snapshots/newer")
        try FileManager.default.createDirectory(
            at: snapshot.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: backup.appendingPathComponent("snapshots/\(latest)"), to: snapshot)
        // (The snapshot's blobs are where restore looks for them: two levels up.)
        try FileManager.default.createSymbolicLink(
            at: scratch.appendingPathComponent("blobs"), withDestinationURL: backup.appendingPathComponent("blobs"))
        let database = snapshot.appendingPathComponent("databases/auth.sqlite")
        let queue = try DatabaseQueue(path: database.path)
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('auth.from-a-later-release')")
        }
        try queue.close()
        let target = scratch.appendingPathComponent("refused")

        let damaged = try await stack.pinhole(["restore", snapshot.path], dataDirectory: target)
        #expect(damaged.status == 1 && damaged.lines.contains { $0.contains("does not match its SHA-256") })

        // Made whole again, it is a backup from a release with one more migration.
        let manifestFile = snapshot.appendingPathComponent("manifest.json")
        var manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: manifestFile)) as? [String: Any])
        let digest = SHA256.hash(data: try Data(contentsOf: database)).map { String(format: "%02x", $0) }.joined()
        manifest["databases"] = (manifest["databases"] as? [[String: Any]] ?? []).map { entry in
            var entry = entry
            if entry["service"] as? String == "auth" { entry["sha256"] = digest }
            return entry
        }
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestFile)
        let newer = try await stack.pinhole(["restore", snapshot.path], dataDirectory: target)
        #expect(
            newer.status == 1
                && newer.lines.contains { $0.contains("newer schema") && $0.contains("auth.from-a-later-release") },
            "\(newer.lines)")
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }
}

/// The writes acknowledged so far, and whether the writers are to stop.
final class WriteLog: Sendable {
    private let state = Mutex((written: [SliceFlow.Written](), stopped: false))

    func append(_ write: SliceFlow.Written) { state.withLock { $0.written.append(write) } }
    func stop() { state.withLock { $0.stopped = true } }
    var all: [SliceFlow.Written] { state.withLock { $0.written } }
    var isStopped: Bool { state.withLock { $0.stopped } }
}
