import Crypto
import Foundation
import GRDB
import ServiceHTTP
import Synchronization
import TestSupport
import Testing

/// Continuous replication against a real S3 peer (moto): people post, vote, reply, snap and message
/// while Litestream ships every commit; the whole stack is killed with SIGKILL and its data
/// directory deleted; `pinhole restore --from-replica` brings it back, newest and at a moment
/// in the middle.
extension StackTests {
    @Test func aKilledStackComesBackFromItsReplicaWholeAndAtAnyMoment() async throws {
        guard let python = await MotoServer.python() else {
            Issue.record("moto is missing: run ./scripts/setup")
            return
        }
        guard let litestream = await Litestream.executable() else {
            Issue.record("litestream is missing: run ./scripts/setup")
            return
        }
        let moto = try await MotoServer.start(python: python)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pinhole-replica-\(UUID().uuidString.prefix(8))")
        do {
            try await moto.createBucket("pinhole-replica")
            try await ReplicationFlow(
                moto: moto, litestream: litestream, url: "s3://pinhole-replica/stack", scratch: scratch
            ).run()
        } catch {
            await moto.stop()
            try? FileManager.default.removeItem(at: scratch)
            throw error
        }
        await moto.stop()
        try? FileManager.default.removeItem(at: scratch)
    }
}

struct ReplicationFlow {
    let moto: MotoServer
    let litestream: URL
    let url: String
    let scratch: URL

    /// One acknowledged write, and when its request began and was answered (wall clock, which
    /// is what `--at` takes).
    struct Write: Sendable {
        enum Kind: Sendable {
            case post(Post, MediaObject)
            case vote(postID: String)
            case reply(Post, toAuthor: Person)
            case message(DirectMessage)
            case snap(Snap)
        }

        let kind: Kind
        let by: Person
        let began: Date
        let acknowledged: Date
    }

    /// The writes acknowledged until the kill.
    final class Writes: Sendable {
        private let state = Mutex((writes: [Write](), stopped: false))

        /// Kept only before the kill: an answer that arrives as the stack dies is not counted.
        func append(_ write: Write) {
            state.withLock { if !$0.stopped { $0.writes.append(write) } }
        }

        func stop() { state.withLock { $0.stopped = true } }
        var isStopped: Bool { state.withLock { $0.stopped } }
        var all: [Write] { state.withLock { $0.writes } }

        func newestPost(by person: Person) -> Post? {
            all.reversed().lazy.compactMap { write -> Post? in
                if case .post(let post, _) = write.kind, write.by.id == person.id { return post }
                return nil
            }.first
        }
    }

    /// The replica's settings: S3 by moto, Litestream from setup, its metrics on a free port.
    var environment: [String: String] {
        get throws {
            [
                "replication.url": url, "replication.litestream": litestream.path,
                "replication.metricsAddress": "127.0.0.1:\(try FreePort.next())", "media.s3.endpoint": moto.endpoint,
                "media.s3.accessKeyId": "pinhole", "media.s3.secretAccessKey": "pinhole-secret",
                "media.s3.addressing": "path", "ratelimit.enabled": "false",
            ].reduce(into: [:]) { $0[ConfigKeys.environmentName($1.key)] = $1.value }
        }
    }

    func run() async throws {
        let stack = try await Stack.start(publicTLS: true, environment: try environment)
        let replicateOutput = LineCollector()
        let replicate: ChildProcess
        do {
            replicate = try stack.startPinhole(["replicate"], output: replicateOutput)
        } catch {
            await stack.stop()
            throw error
        }
        let flow = SliceFlow(stack: stack, document: try OpenAPIDocument.load())
        let log = Writes()
        let (writers, middle, killedAt): ([Person], Date, Date)
        do {
            #expect(
                await eventually(timeout: .seconds(20)) {
                    replicateOutput.lines.contains { $0.contains("snapshot complete") && $0.contains("files.sqlite") }
                }, "\(replicateOutput.lines.suffix(20))")
            writers = try await [flow.signUp("Rae"), flow.signUp("Sol"), flow.signUp("Tam")]
            // Friends all round: each snaps once into both of their streaks.
            for (index, writer) in writers.enumerated() {
                _ = try await flow.befriend(writer, writers[(index + 1) % writers.count])
            }
            (middle, killedAt) = try await writeThenKill(
                flow, writers: writers, log: log, stack: stack, replicate: replicate)
        } catch {
            print("---- replicate\n" + replicateOutput.lines.suffix(40).joined(separator: "\n"))
            replicate.send(SIGKILL)
            await stack.stop()
            throw error
        }
        await stack.stop()
        let writes = log.all
        let settled = writes.filter { $0.acknowledged < killedAt.addingTimeInterval(-1) }
        print(
            "replication: \(writes.count) writes acknowledged, \(settled.count) of them more than 1 s before the kill; "
                + "--at \(Self.rfc3339(middle))")
        #expect(settled.count >= 12, "too few writes to judge: \(writes.count)")
        // Three snaps: two before the moment in the middle, one after it.
        let snaps = settled.filter {
            if case .snap = $0.kind { return true }
            return false
        }
        #expect(snaps.count == 3 && snaps.filter { $0.began > middle }.count == 1, "\(snaps.map(\.began))")

        try await restoresTheNewest(
            writers: writers, settled: settled,
            recent: writes.filter { $0.acknowledged >= killedAt.addingTimeInterval(-1) })
        try await restoresAMomentInTheMiddle(middle, writes: writes)
    }

    /// Writes from three people at once for a few seconds, notes a moment in the middle, then
    /// kills every process (Litestream too) and deletes the data directory.
    private func writeThenKill(
        _ flow: SliceFlow, writers: [Person], log: Writes, stack: Stack, replicate: ChildProcess
    ) async throws -> (middle: Date, killedAt: Date) {
        let writing = Task {
            await withTaskGroup(of: Void.self) { group in
                for (index, writer) in writers.enumerated() {
                    let next = writers[(index + 1) % writers.count]
                    group.addTask {
                        do {
                            try await write(as: writer, to: next, seed: index, flow: flow, log: log)
                        } catch  where log.isStopped {
                            // The stack was killed under the request: not acknowledged, not counted.
                        } catch {
                            Issue.record("\(writer.name)'s writes failed before the kill: \(error)")
                        }
                    }
                }
            }
        }
        try await Task.sleep(for: .seconds(4))
        let middle = Date()
        try await Task.sleep(for: .seconds(4))
        // Under this load each service exports its database's lag (measured every 15 s).
        let lag = LineCollector()
        let reported = await eventually(timeout: .seconds(25)) {
            let text = (try? await stack.internalClient.call(.GET, stack.serviceURL(.feed) + "/metrics"))?.text ?? ""
            let line = text.split(separator: "\n").first { $0.hasPrefix("pinhole_replication_lag_seconds") }
            lag.replace(with: line.map { [String($0)] } ?? [])
            return line != nil
        }
        let seconds = lag.lines.first?.split(separator: " ").last.flatMap { Double($0) }
        #expect(reported && (seconds ?? .infinity) < 5, "feed's replication lag: \(lag.lines)")
        print("replication: feed under load reports \(lag.lines.first ?? "no lag")")
        // `pinhole status` shows every database's replica and its lag (the processes' rows are
        // `pinhole up`'s, which this stack is not run by).
        let status = try await stack.pinhole(["status"])
        for database in ServiceName.services.map(\.rawValue) + ["files"] {
            let row = status.lines.first { $0.hasPrefix(database + " ") && $0.hasSuffix("s") }
            #expect(row.map { !$0.contains("unknown") } == true, "\(database): \(status.lines)")
        }
        // The whole stack at once, mid-request: no process gets to flush or sync anything more.
        log.stop()
        let killedAt = Date()
        let litestreamPID = try String(
            contentsOf: stack.directory.url.appendingPathComponent("run/litestream.pid"), encoding: .utf8)
        await withTaskGroup(of: Void.self) { group in
            for name in ServiceName.executables { group.addTask { await stack.kill(name) } }
            group.addTask {
                replicate.send(SIGKILL)
                kill(Int32(litestreamPID.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, SIGKILL)
            }
        }
        await writing.value
        await replicate.waitForExit()
        try FileManager.default.removeItem(at: stack.directory.url)
        return (middle, killedAt)
    }

    /// One person's loop: a photo post; an up-vote and a reply on the next person's newest
    /// post; a message to them; once, a snap (one a day per streak): the first two people at
    /// once, the third after the moment in the middle.
    private func write(
        as writer: Person, to next: Person, seed: Int, flow: SliceFlow, log: Writes
    ) async throws {
        var round = 0
        var answered: Set<String> = []
        var snapped = false
        let snapAfter = Date().addingTimeInterval(seed == 2 ? 5 : 0)
        func record(_ kind: Write.Kind, began: Date) {
            log.append(Write(kind: kind, by: writer, began: began, acknowledged: Date()))
        }
        while !log.isStopped {
            var began = Date()
            if !snapped, began > snapAfter {
                let photo = try await flow.upload(TestImages.jpeg(seed: UInt8(200 + seed)), as: writer)
                began = Date()
                let sent = try await flow.call(
                    .POST, "/v1/snaps", as: writer, json: SnapCreate(mediaId: photo.id, timeZone: "UTC"))
                #expect(sent.status == 201, "\(sent.text)")
                record(.snap(try sent.decode(Snap.self)), began: began)
                snapped = true
                began = Date()
            }
            let media = try await flow.upload(TestImages.jpeg(seed: UInt8((seed * 80 + round) % 256)), as: writer)
            let post = try await flow.publish(media, as: writer, caption: "replicated \(seed) \(round)")
            record(.post(post, media), began: began)
            // Each post is voted and answered once: a second vote would change a row the first made.
            if let target = log.newestPost(by: next), answered.insert(target.id).inserted {
                began = Date()
                let voted = try await flow.call(
                    .PUT, "/v1/posts/\(target.id)/vote", as: writer, json: VoteRequest(value: .up))
                #expect(voted.status == 200, "\(voted.text)")
                record(.vote(postID: target.id), began: began)
                began = Date()
                let replied = try await flow.call(
                    .POST, "/v1/posts", as: writer, json: CreatePostRequest(text: "reply \(round)", replyTo: target.id))
                #expect(replied.status == 201, "\(replied.text)")
                record(.reply(try replied.decode(Post.self), toAuthor: next), began: began)
            }
            began = Date()
            let sent = try await flow.call(
                .POST, "/v1/messages", as: writer, json: MessageDraft(recipientId: next.id, text: "round \(round)"))
            #expect(sent.status == 201, "\(sent.text)")
            record(.message(try sent.decode(DirectMessage.self)), began: began)
            round += 1
        }
    }

    /// The newest moment (`pinhole init --restore-if-empty`): a stack on the restored directory answers every write acknowledged
    /// more than 1 s before the kill, downloads their photos with the right SHA-256, and
    /// delivers the events the services' outboxes still held once each.
    private func restoresTheNewest(writers: [Person], settled: [Write], recent: [Write]) async throws {
        let directory = scratch.appendingPathComponent("newest")
        // As a container's init step on a new disk does it.
        let restore = try await pinhole(["init", "--restore-if-empty"], dataDirectory: directory)
        #expect(restore.status == 0, "\(restore.lines)")
        print("replication: \(restore.lines.joined(separator: " | "))")
        // The restored stack does not replicate into the same place (a new prefix would be set).
        let stack = try await Stack.start(
            publicTLS: true, environment: [ConfigKeys.environmentName("ratelimit.enabled"): "false"],
            directory: TestDataDirectory(existing: directory))
        try await stack.run { stack in
            let flow = SliceFlow(stack: stack, document: try OpenAPIDocument.load())
            for write in settled {
                #expect(try await isAnswered(write, by: flow), "\(write.kind) is missing or damaged")
            }
            // The last second (what Litestream may not have shipped yet): counted, for the RPO.
            var back = 0
            for write in recent where try await isAnswered(write, by: flow) { back += 1 }
            print("replication: \(back) of the \(recent.count) writes of the last second before the kill came back")
            // Each reply tells its post's author once: the events feed's outbox still held at
            // the kill arrive now, and none that alerts had applied is applied again.
            let replies = settled.compactMap { write -> (Post, Person)? in
                if case .reply(let reply, let author) = write.kind { return (reply, author) }
                return nil
            }
            #expect(!replies.isEmpty)
            for author in writers {
                let expected = Set(replies.filter { $0.1.id == author.id }.map(\.0.id))
                let told = LineCollector()
                let complete = await flow.eventually {
                    let ids =
                        (try? await flow.notifications(of: author))?.filter { $0.type == .reply }
                        .compactMap { $0.data["replyId"] } ?? []
                    told.replace(with: ids)
                    return expected.isSubset(of: Set(ids))
                }
                #expect(complete, "\(author.name) was not told of every reply: \(expected.subtracting(told.lines))")
                #expect(Set(told.lines).count == told.lines.count, "a reply was told twice: \(told.lines.sorted())")
            }
        }
    }

    /// Whether the restored stack answers `write` as it was acknowledged (a photo with its bytes).
    private func isAnswered(_ write: Write, by flow: SliceFlow) async throws -> Bool {
        switch write.kind {
        case .post(let post, let media):
            let shown = try await flow.call(.GET, "/v1/posts/\(post.id)", as: write.by)
            guard shown.status == 200, (try? shown.decode(Post.self))?.mediaId == media.id else { return false }
            let content = try await flow.call(.GET, "/v1/media/\(media.id)/content", as: write.by)
            return content.status == 200 && Hex.encode(SHA256.hash(data: content.body)) == media.sha256
        case .vote(let postID):
            let shown = try await flow.call(.GET, "/v1/posts/\(postID)", as: write.by)
            return (try? shown.decode(Post.self))?.myVote == .up
        case .reply(let reply, _):
            return try await flow.call(.GET, "/v1/posts/\(reply.id)", as: write.by).status == 200
        case .message(let message):
            let listed = try await flow.call(
                .GET, "/v1/messages/conversations/\(message.conversationId)/messages?limit=100", as: write.by)
            return listed.status == 200 && listed.text.contains(message.id)
        case .snap(let snap):
            guard !snap.streaks.isEmpty else { return false }
            for streak in snap.streaks {
                let shown = try await flow.call(.GET, "/v1/streaks/\(streak.id)", as: write.by)
                guard (try? shown.decode(Streak.self))?.snappedByMe == true else { return false }
            }
            return true
        }
    }

    /// A moment in the middle: exactly what was acknowledged before it (allowing Litestream's
    /// interval for a commit to reach its transaction file), nothing begun after it; the
    /// blobs of its posts are there, whole.
    private func restoresAMomentInTheMiddle(_ middle: Date, writes: [Write]) async throws {
        let directory = scratch.appendingPathComponent("middle")
        let restore = try await pinhole(
            ["restore", "--from-replica", url, "--at", Self.rfc3339(middle)], dataDirectory: directory)
        #expect(restore.status == 0, "\(restore.lines)")
        let feed = try DatabaseQueue(path: directory.appendingPathComponent("feed/feed.sqlite").path)
        let alerts = try DatabaseQueue(path: directory.appendingPathComponent("alerts/alerts.sqlite").path)
        let streak = try DatabaseQueue(path: directory.appendingPathComponent("streak/streak.sqlite").path)
        defer {
            try? feed.close()
            try? alerts.close()
            try? streak.close()
        }
        let before = writes.filter { $0.acknowledged < middle.addingTimeInterval(-1) }
        let after = writes.filter { $0.began > middle }
        #expect(!before.isEmpty && !after.isEmpty)
        /// Whether `database` holds a row of `table` matching `condition` with `arguments`.
        func exists(
            in database: DatabaseQueue, _ table: String, _ condition: String, _ arguments: StatementArguments
        ) async throws -> Bool {
            try await database.read { db in
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE \(condition))", arguments: arguments)
            } ?? false
        }
        for write in before + after {
            let expected = write.acknowledged < middle
            let present: Bool
            switch write.kind {
            case .post(let post, let media):
                present = try await exists(in: feed, "post", "id = ?", [post.id])
                if expected {
                    let blob = directory.appendingPathComponent(
                        "media/blobs/\(media.sha256.prefix(2))/\(media.sha256)")
                    let bytes = try? Data(contentsOf: blob)
                    #expect(bytes.map { Hex.encode(SHA256.hash(data: $0)) } == media.sha256, "blob of \(post.id)")
                }
            case .vote(let postID):
                present = try await exists(in: feed, "vote", "post_id = ? AND user_id = ?", [postID, write.by.id])
            case .reply(let reply, _):
                present = try await exists(in: feed, "post", "id = ?", [reply.id])
            case .message(let message):
                present = try await exists(in: alerts, "message", "id = ?", [message.id])
            case .snap(let snap):
                present = try await exists(in: streak, "snap", "id = ?", [snap.id])
            }
            #expect(present == expected, "\(write.kind) began \(write.began), acknowledged \(write.acknowledged)")
        }
    }

    /// `pinhole` with the replica's settings, into `dataDirectory`.
    private func pinhole(_ arguments: [String], dataDirectory: URL) async throws -> (status: Int32, lines: [String]) {
        let output = LineCollector()
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in try self.environment { environment[key] = value }
        let child = try ChildProcess(
            name: "pinhole", executable: Stack.binaryDirectory().appendingPathComponent("pinhole"),
            arguments: arguments + ["--data-dir", dataDirectory.path], environment: environment,
            onLine: output.append)
        return (await child.waitForExit(), output.lines)
    }

    static func rfc3339(_ date: Date) -> String {
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return format.string(from: date)
    }
}
