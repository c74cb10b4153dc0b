import Contracts
import Foundation
import GRDB
import Logging
import Synchronization
import Testing

@testable import ServiceHTTP
@testable import ServiceStore

/// The copies of people and media every list reads (``ProfileMirror``, ``MediaMirror``), the
/// views made from them (``Views``) and their first fill (``MirrorFill``).
@Suite struct ViewMirrorsTests {
    static let (ada, ben) = ("0194e0a0-0000-7000-8000-00000000000a", "0194e0a0-0000-7000-8000-00000000000b")
    static let (photo, video) = ("0194e0a0-0000-7000-8000-0000000000f1", "0194e0a0-0000-7000-8000-0000000000f2")
    static let keys = MediaURLKeys(
        current: "k1", keys: [MediaURLKey(kid: "k1", secret: Base64URL.encode(Data(repeating: 7, count: 32)))])
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func pool() throws -> DatabasePool {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "views-\(UUID().uuidString)/db.sqlite")
        return try ServiceDatabase.open(at: file) { migrator in
            ProfileMirror.registerMigration(&migrator)
            MediaMirror.registerMigration(&migrator)
        }
    }

    static func remove(_ pool: DatabasePool) {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: pool.path).deletingLastPathComponent())
    }

    static func views() throws -> Views {
        Views(keys: try MediaURLKeyRing.fixed(keys), clock: ManualClock(now))
    }

    static func profile(
        _ id: String, _ name: String, avatar: String? = nil, deleted: Bool = false, revision: Int
    )
        -> ProfileChanged
    {
        ProfileChanged(
            userId: id, username: name.lowercased(), displayName: name, avatarMediaId: avatar, deleted: deleted,
            revision: revision)
    }

    static func described(
        _ id: String, owner: String = ada, kind: MediaKind = .photo, status: MediaStatus, revision: Int = 1
    ) -> MediaDescribed {
        let variants: [MediaVariant] = kind == .photo ? [.thumbnail, .display] : [.thumbnail, .poster, .playback]
        return MediaDescribed(
            mediaId: id, ownerId: owner, kind: kind, status: status, width: 1200, height: 900,
            durationMs: kind == .video ? 15_000 : nil, placeholder: "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
            variants: status == .processing ? [] : variants, revision: revision)
    }

    // MARK: - Copies

    @Test func aProfileKeepsItsHighestRevision() async throws {
        let pool = try Self.pool()
        defer { Self.remove(pool) }
        let applied = try await pool.write { db in
            [
                try ProfileMirror.apply(Self.profile(Self.ada, "Ada", revision: 2), in: db),
                // Late: an older event (or an export page read before the rename) changes nothing.
                try ProfileMirror.apply(Self.profile(Self.ada, "Ada Old", revision: 1), in: db),
                try ProfileMirror.apply(Self.profile(Self.ada, "Ada Old", revision: 2), in: db),
                try ProfileMirror.apply(Self.profile(Self.ada, "Ada Lovelace", revision: 3), in: db),
            ]
        }
        #expect(applied == [true, false, false, true])
        let row = try await pool.read { db in try ProfileMirror.profiles([Self.ada, Self.ben], in: db) }
        #expect(row.count == 1)
        #expect(row[Self.ada]?.displayName == "Ada Lovelace")
        #expect(row[Self.ada]?.revision == 3)
    }

    @Test func aMediaObjectKeepsItsHighestRevision() async throws {
        let pool = try Self.pool()
        defer { Self.remove(pool) }
        let applied = try await pool.write { db in
            [
                try MediaMirror.apply(Self.described(Self.photo, status: .processing, revision: 1), in: db),
                try MediaMirror.apply(Self.described(Self.photo, status: .ready, revision: 3), in: db),
                try MediaMirror.apply(Self.described(Self.photo, status: .held, revision: 2), in: db),
            ]
        }
        #expect(applied == [true, true, false])
        let row = try await pool.read { db in try MediaMirror.media([Self.photo], in: db)[Self.photo] }
        #expect(row?.status == .ready)
        #expect(row?.variantSet == [.thumbnail, .display])
    }

    // MARK: - Views

    @Test func peopleShowNamesAvatarsAndDeletedAccounts() async throws {
        let pool = try Self.pool()
        defer { Self.remove(pool) }
        let gone = "0194e0a0-0000-7000-8000-00000000000c"
        let unknown = "0194e0a0-0000-7000-8000-00000000000d"
        try await pool.write { db in
            try ProfileMirror.apply(Self.profile(Self.ada, "Ada", avatar: Self.photo, revision: 1), in: db)
            try ProfileMirror.apply(Self.profile(Self.ben, "Ben", revision: 1), in: db)
            try ProfileMirror.apply(Self.profile(gone, "Cy", deleted: true, revision: 2), in: db)
            try MediaMirror.apply(Self.described(Self.photo, status: .ready), in: db)
        }
        let views = try Self.views()
        let people = try await pool.read { db in try views.people([Self.ada, Self.ben, gone, unknown], in: db) }

        let ada = try #require(people[Self.ada])
        #expect(ada.displayName == "Ada" && ada.username == "ada" && !ada.deleted)
        #expect(ada.avatarURL == "/v1/media/\(Self.photo)/thumbnail")
        let avatar = try #require(ada.avatar)
        #expect(avatar.placeholder == "LEHV6nWB2yk8pyo0adR*.7kCMdnj")
        #expect(avatar.aspectRatio == 1.333)
        let thumbnail = try #require(avatar.thumbnailURL)
        #expect(thumbnail.hasPrefix("/v1/media/views/\(Self.photo)/thumbnail?exp="))
        // The URL verifies under media's keys, for that variant only.
        let query = try #require(URLComponents(string: thumbnail)?.queryItems)
        let value = { (name: String) in query.first { $0.name == name }?.value ?? "" }
        let signer = try MediaURLSigner(Self.keys)
        let expires = try #require(Int(value("exp")))
        #expect(signer.isValid(Self.photo, .thumbnail, expires: expires, kid: value("kid"), signature: value("sig")))
        #expect(!signer.isValid(Self.photo, .display, expires: expires, kid: value("kid"), signature: value("sig")))
        #expect(avatar.expiresAt == Date(timeIntervalSince1970: TimeInterval(expires)))
        #expect(expires > Int(Self.now.timeIntervalSince1970) + 3600)

        #expect(people[Self.ben]?.avatar == nil && people[Self.ben]?.displayName == "Ben")
        #expect(people[gone] == .deletedAccount(gone))
        // Not copied yet (its event still on the way): the id, no name, never a missing entry.
        #expect(people[unknown] == PersonView(id: unknown, username: nil, displayName: ""))
    }

    @Test func mediaShowsURLsOnlyWhenItMayBeLoaded() async throws {
        let pool = try Self.pool()
        defer { Self.remove(pool) }
        let (held, processing) = ("0194e0a0-0000-7000-8000-0000000000f3", "0194e0a0-0000-7000-8000-0000000000f4")
        try await pool.write { db in
            try MediaMirror.apply(Self.described(Self.photo, status: .ready), in: db)
            try MediaMirror.apply(Self.described(Self.video, kind: .video, status: .ready), in: db)
            try MediaMirror.apply(Self.described(held, status: .held), in: db)
            try MediaMirror.apply(Self.described(processing, status: .processing), in: db)
        }
        let views = try Self.views()
        let ids = [Self.photo, Self.video, held, processing, "0194e0a0-0000-7000-8000-0000000000f5"]
        let (asBen, asAda) = try await pool.read { db in
            (try views.media(ids, viewer: Self.ben, in: db), try views.media(ids, viewer: Self.ada, in: db))
        }
        #expect(asBen.count == 4, "media the copy does not hold has no view")

        let photo = try #require(asBen[Self.photo])
        #expect(photo.kind == .photo && photo.thumbnailURL != nil && photo.displayURL != nil)
        #expect(photo.posterURL == nil && photo.playbackURL == nil)
        let video = try #require(asBen[Self.video])
        #expect(video.durationMs == 15_000 && video.posterURL != nil && video.playbackURL != nil)
        #expect(video.displayURL == nil)

        // Held by screening: its owner sees it, nobody else gets a URL (the placeholder stays).
        #expect(asBen[held]?.thumbnailURL == nil && asBen[held]?.expiresAt == nil)
        #expect(asBen[held]?.placeholder != nil && asBen[held]?.status == .held)
        #expect(asAda[held]?.thumbnailURL != nil)
        // Still processing: no URL for anyone.
        #expect(asAda[processing]?.thumbnailURL == nil && asAda[processing]?.status == .processing)
    }

    @Test func viewsCarryNoURLsUntilTheKeysAreKnown() async throws {
        let pool = try Self.pool()
        defer { Self.remove(pool) }
        _ = try await pool.write { db in try MediaMirror.apply(Self.described(Self.photo, status: .ready), in: db) }
        let ring = MediaURLKeyRing(
            fetch: { throw CancellationError() }, interval: .seconds(60), logger: Logger(label: "t"))
        let views = Views(keys: ring, clock: ManualClock(Self.now))
        let view = try await pool.read { db in try views.media([Self.photo], viewer: Self.ada, in: db)[Self.photo] }
        #expect(view?.width == 1200 && view?.placeholder != nil)
        #expect(view?.thumbnailURL == nil)
    }

    // MARK: - First fill

    /// An export of `items` in pages of the fill's size, counting the requests.
    final class Export<Item: Sendable>: Sendable {
        let items: [Item]
        let requests = Mutex<[String?]>([])
        let failFirst: Bool

        init(_ items: [Item], failFirst: Bool = false) {
            self.items = items
            self.failFirst = failFirst
        }

        func job(
            _ source: MirrorFill.Source, apply: @escaping @Sendable (Item, Database) throws -> Void
        )
            -> MirrorFill.Job
        {
            MirrorFill.Job(source: source) { after, limit in
                let count = self.requests.withLock {
                    $0.append(after)
                    return $0.count
                }
                if self.failFirst && count == 1 { throw ServiceError(.upstreamUnavailable, "auth is down") }
                let start = after.flatMap(Int.init) ?? 0
                let page = Array(self.items[start..<min(start + limit, self.items.count)])
                let end = start + page.count
                return (
                    { db in for item in page { try apply(item, db) } }, end < self.items.count ? "\(end)" : nil,
                    page.count
                )
            }
        }
    }

    static func fill(_ pool: DatabasePool, _ jobs: [MirrorFill.Job]) -> MirrorFill {
        MirrorFill(database: pool, jobs: jobs, interval: .seconds(60), pageSize: 2, logger: Logger(label: "fill"))
    }

    @Test func anEmptyCopyIsFilledPageByPageOnce() async throws {
        let pool = try Self.pool()
        defer { Self.remove(pool) }
        let people = (1...5).map { Self.profile("user-\($0)", "User \($0)", revision: 1) }
        let media = [Self.described(Self.photo, status: .ready)]
        let profiles = Export(people)
        let photos = Export(media)
        let fill = Self.fill(
            pool,
            [
                profiles.job(ProfileMirror.fill) { try ProfileMirror.apply($0, in: $1) },
                photos.job(MediaMirror.fill) { try MediaMirror.apply($0, in: $1) },
            ])
        #expect(await fill.fillAll())
        #expect(profiles.requests.withLock { $0 } == [nil, "2", "4"])
        #expect(photos.requests.withLock { $0 } == [nil])
        let (rows, photo, state) = try await pool.read { db in
            (
                try ProfileMirrorRecord.fetchCount(db), try MediaMirror.media([Self.photo], in: db).count,
                try MirrorFill.state("profiles", in: db)
            )
        }
        #expect(rows == 5 && photo == 1)
        #expect(state.complete)

        // Done is done: neither this fill nor a new one (a restart) asks again.
        #expect(await fill.fillAll())
        #expect(
            await Self.fill(pool, [profiles.job(ProfileMirror.fill) { try ProfileMirror.apply($0, in: $1) }]).fillAll())
        #expect(profiles.requests.withLock { $0.count } == 3)
    }

    @Test func aFillGoesOnWhereItStoppedAndNeverUndoesAnEvent() async throws {
        let pool = try Self.pool()
        defer { Self.remove(pool) }
        // The export was read before Ada renamed herself; her rename's event arrived first.
        let people = [
            Self.profile(Self.ada, "Ada Old", revision: 1), Self.profile(Self.ben, "Ben", revision: 1),
            Self.profile("user-3", "Cy", revision: 1),
        ]
        _ = try await pool.write { db in try ProfileMirror.apply(Self.profile(Self.ada, "Ada", revision: 2), in: db) }
        // Auth is down at first: nothing is written, and the next attempt starts from the top.
        let export = Export(people, failFirst: true)
        let fill = Self.fill(pool, [export.job(ProfileMirror.fill) { try ProfileMirror.apply($0, in: $1) }])
        #expect(await fill.fillAll() == false)
        #expect(try await pool.read { db in try MirrorFill.state("profiles", in: db).complete } == false)
        #expect(await fill.fillAll())
        #expect(export.requests.withLock { $0 } == [nil, nil, "2"])

        let names = try await pool.read { db in try ProfileMirror.profiles([Self.ada, Self.ben, "user-3"], in: db) }
        #expect(names.mapValues(\.displayName) == [Self.ada: "Ada", Self.ben: "Ben", "user-3": "Cy"])

        // A process that stopped after its first page resumes at the second.
        let second = try Self.pool()
        defer { Self.remove(second) }
        try await second.write { db in
            try db.execute(
                sql: "INSERT INTO kit_mirror_fill (name, after, complete) VALUES ('profiles', '2', 0)")
        }
        let resumed = Export(people)
        #expect(
            await Self.fill(second, [resumed.job(ProfileMirror.fill) { try ProfileMirror.apply($0, in: $1) }]).fillAll()
        )
        #expect(resumed.requests.withLock { $0 } == ["2"])
        #expect(try await second.read { db in try ProfileMirrorRecord.fetchCount(db) } == 1)
    }
}
