import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Spots: places with photos, tags, check-ins and ratings. Public to everyone
/// signed in, except across a block with the spot's creator.
extension FeedStore {
    /// A spot with what its reader needs.
    struct SpotView: Sendable {
        var record: SpotRecord
        var tags: [String]
        var images: [String]
        var myRating: Int?
        var checkedIn: Bool
        var distance: Double?
        /// The creator and the photos, as views.
        var creator: PersonView?
        var photos: [MediaView] = []

        var contract: Spot {
            var spot = record.contract(
                tags: tags, images: images, myRating: myRating, checkedIn: checkedIn, distance: distance)
            spot.creator = creator
            spot.photos = photos
            return spot
        }
    }

    /// Stores a new spot with its tags and photos (made public in the same transaction) unless
    /// the creator made `policy.limit` within its window (429).
    func createSpot(
        _ spot: SpotRecord, tags: [String], images: [String], limit policy: RatePolicy
    ) async throws -> SpotView {
        try await database.tracedWrite { [outbox] db in
            let recent = try SpotRecord.filter(SpotRecord.Columns.creatorId == spot.creatorId)
                .filter(SpotRecord.Columns.createdAt > spot.createdAt.addingTimeInterval(-policy.window))
                .select(SpotRecord.Columns.createdAt, as: Date.self).fetchAll(db)
            let decision = policy.decide(after: recent, now: spot.createdAt)
            guard decision.allowed else {
                throw ServiceError.rateLimited(
                    "At most \(policy.limit) spots a day.", policy: policy, decision: decision)
            }
            try spot.insert(db)
            try Self.replace(tags: tags, images: images, of: spot, outbox: outbox, in: db)
            return try views([spot], viewer: spot.creatorId, in: db)[0]
        }
    }

    /// Changes the spot when `user` created it (nil otherwise, as for a spot that does not
    /// exist): `change` edits the row (or throws, and nothing is written); tags and photos,
    /// when given, replace the old ones.
    func updateSpot(
        id: String, by user: String, at now: Date, tags: [String]?, images: [String]?,
        change: @escaping @Sendable (inout SpotRecord) throws -> Void
    ) async throws -> SpotView? {
        try await database.tracedWrite { [outbox] db in
            guard var spot = try SpotRecord.fetchOne(db, key: id), spot.creatorId == user else { return nil }
            try change(&spot)  // invalid input throws: nothing is written
            spot.updatedAt = now
            try spot.update(db)
            if tags != nil || images != nil {
                let current = try views([spot], viewer: user, in: db)[0]
                try Self.replace(
                    tags: tags ?? current.tags, images: images ?? current.images, of: spot, outbox: outbox, in: db)
            }
            return try views([spot], viewer: user, in: db)[0]
        }
    }

    /// Deletes the spot when `user` created it; its check-ins and ratings go with it, and
    /// challenges skated there keep their place but no longer name it.
    func deleteSpot(id: String, by user: String) async throws -> Bool {
        try await database.tracedWrite { db in
            guard let spot = try SpotRecord.fetchOne(db, key: id), spot.creatorId == user else { return false }
            try db.execute(sql: "UPDATE challenge SET spot_id = NULL WHERE spot_id = ?", arguments: [id])
            return try spot.delete(db)
        }
    }

    /// The spot as `viewer` sees it, or nil (unknown, or a block with its creator).
    func spot(id: String, viewer: String) async throws -> SpotView? {
        try await database.tracedRead { db in
            guard let spot = try Self.visibleSpot(id: id, viewer: viewer, in: db) else { return nil }
            return try views([spot], viewer: viewer, in: db)[0]
        }
    }

    static func visibleSpot(id: String, viewer: String, in db: Database) throws -> SpotRecord? {
        try SpotRecord.fetchOne(
            db,
            sql: "SELECT s.* FROM spot s WHERE s.id = :id AND \(Self.spotShown(to: ":viewer"))",
            arguments: ["id": id, "viewer": viewer])
    }

    /// Spots within `radius` metres of `center`, newest first, with `tag` and `difficulty` when
    /// given: up to `limit + 1`.
    func spots(
        near center: Coordinate, radius: Double, tag: String?, difficulty: SpotDifficulty?, viewer: String,
        after position: TimePosition?, limit: Int
    ) async throws -> [SpotView] {
        try await database.tracedRead { db in
            try Self.scan(.spots, center: center, radius: radius, after: position, limit: limit, in: db) { chunk in
                let distances = Dictionary(uniqueKeysWithValues: chunk.map { ($0.id, $0.distance) })
                var arguments: StatementArguments = [
                    "ids": JSONList.argument(chunk.map(\.id)), "viewer": viewer,
                ]
                let filters = Self.filters(tag: tag, difficulty: difficulty, arguments: &arguments)
                let records = try SpotRecord.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT s.* FROM spot s WHERE s.id IN (SELECT value FROM json_each(:ids)) \(filters)
                            AND \(Self.spotShown(to: ":viewer"))
                            """), arguments: arguments)
                let byID = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) })
                return try views(chunk.compactMap { byID[$0.id] }, viewer: viewer, in: db).map { view in
                    var view = view
                    view.distance = distances[view.record.id]
                    return view
                }
            }
        }
    }

    /// Spots newest first, by `tag` and `difficulty` when given: up to `limit + 1`. A tag's
    /// list is read in order from `spot_tag` (keyed by tag, then time), the rest from
    /// `spot_by_time`.
    func spots(
        tag: String?, difficulty: SpotDifficulty?, viewer: String, after position: TimePosition?, limit: Int
    ) async throws -> [SpotView] {
        try await database.tracedRead { db in
            var arguments: StatementArguments = ["viewer": viewer, "limit": limit + 1]
            // The rows ordered: a tag's entries, or every spot.
            let (source, time, id) =
                tag == nil
                ? ("spot s", "s.created_at", "s.id")
                : (
                    "spot_tag t JOIN spot s ON s.id = t.spot_id", "t.created_at", "t.spot_id"
                )
            var conditions = [Self.spotShown(to: ":viewer")]
            if let tag {
                conditions.append("t.tag = :tag")
                _ = arguments.append(contentsOf: ["tag": tag])
            }
            if let difficulty {
                conditions.append("s.difficulty = :difficulty")
                _ = arguments.append(contentsOf: ["difficulty": difficulty.rawValue])
            }
            if let position {
                conditions.append("(\(time) < :at OR (\(time) = :at AND \(id) < :id))")
                _ = arguments.append(contentsOf: ["at": position.createdAt, "id": position.id])
            }
            let records = try SpotRecord.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT s.* FROM \(source) WHERE \(conditions.joined(separator: " AND "))
                        ORDER BY \(time) DESC, \(id) DESC LIMIT :limit
                        """), arguments: arguments)
            return try views(records, viewer: viewer, in: db)
        }
    }

    /// A check-in by `user` standing at `place`, within `maxDistance` metres of the spot; one a
    /// (UTC) day, a second answered with the first. The first ever unlocks the spot for them
    /// (`spot.unlocked`).
    func checkIn(
        spot id: String, by user: String, at place: Coordinate, maxDistance: Double, now: Date, checkInID: String
    ) async throws -> (record: SpotCheckInRecord, firstVisit: Bool, created: Bool)? {
        try await database.tracedWrite { [outbox] db in
            guard var spot = try Self.visibleSpot(id: id, viewer: user, in: db) else { return nil }
            let distance = place.distance(to: try spot.point())
            guard distance <= maxDistance else {
                throw ServiceError.validation(
                    "You are \(Int(distance.rounded())) m from this spot: check in within \(Int(maxDistance)) m.")
            }
            typealias Columns = SpotCheckInRecord.Columns
            let day = Self.utcDay(now)
            let mine = SpotCheckInRecord.filter(Columns.spotId == id && Columns.userId == user)
            if let today = try mine.filter(Columns.localDay == day).fetchOne(db) {
                let earlier = try mine.filter(Columns.localDay < day).fetchCount(db)
                return (today, earlier == 0, false)
            }
            let firstVisit = try mine.fetchCount(db) == 0
            let record = SpotCheckInRecord(
                id: checkInID, spotId: id, userId: user, localDay: day, distanceM: distance.rounded(), createdAt: now)
            try record.insert(db)
            spot.checkInCount += 1
            try spot.update(db)
            if firstVisit {
                try outbox.enqueue(SpotUnlocked(spotId: id, spotName: spot.name, userId: user), in: db)
                try Self.adjustCounts(of: user, outbox: outbox, in: db)
            }
            return (record, firstVisit, true)
        }
    }

    /// `POST /v1/spots/nearby`: the nearest spot `user` may see within `rules.radius` of
    /// `place`, and whether they are told of it now. They are told (`spot.nearby`, in the same
    /// transaction as the notice that keeps it from repeating) unless they created it, were
    /// told of it within `rules.repeatAfter`, or were told of any spot within `rules.gap`.
    /// Notices older than the repeat window go as new ones are written.
    func spotNearby(
        for user: String, at place: Coordinate, rules: FeedSettings.Spots.Nearby, now: Date
    ) async throws -> (spot: SpotView, told: Bool)? {
        try await database.tracedWrite { [outbox] db in
            let around = try Self.scan(.spots, center: place, radius: rules.radius, after: nil, limit: 50, in: db) {
                chunk in
                let shown = try String.fetchSet(
                    db.cachedStatement(
                        sql: """
                            SELECT s.id FROM spot s WHERE s.id IN (SELECT value FROM json_each(:ids))
                            AND \(Self.spotShown(to: ":viewer"))
                            """), arguments: ["ids": JSONList.argument(chunk.map(\.id)), "viewer": user])
                return chunk.filter { shown.contains($0.id) }
            }
            guard let nearest = around.min(by: { ($0.distance, $0.id) < ($1.distance, $1.id) }),
                let spot = try SpotRecord.fetchOne(db, key: nearest.id)
            else { return nil }
            typealias Columns = SpotNoticeRecord.Columns
            let mine = SpotNoticeRecord.filter(Columns.userId == user)
            let recently = mine.filter(
                Columns.spotId == spot.id && Columns.toldAt > now.addingTimeInterval(-rules.repeatAfter))
            let lately = mine.filter(Columns.toldAt > now.addingTimeInterval(-rules.gap))
            let told = try spot.creatorId != user && recently.isEmpty(db) && lately.isEmpty(db)
            if told {
                try mine.filter(Columns.toldAt <= now.addingTimeInterval(-rules.repeatAfter)).deleteAll(db)
                try SpotNoticeRecord(userId: user, spotId: spot.id, toldAt: now).upsert(db)
                try outbox.enqueue(
                    SpotNearby(
                        spotId: spot.id, spotName: spot.name, userId: user, distanceM: Int(nearest.distance.rounded())),
                    in: db)
            }
            var view = try views([spot], viewer: user, in: db)[0]
            view.distance = nearest.distance
            return (view, told)
        }
    }

    /// `user`'s 1–5 stars for the spot (changeable); the spot's mean moves in the same transaction.
    func rate(spot id: String, by user: String, stars: Int, at now: Date) async throws -> SpotView? {
        try await database.tracedWrite { db in
            guard var spot = try Self.visibleSpot(id: id, viewer: user, in: db) else { return nil }
            let previous = try SpotRatingRecord.fetchOne(db, key: ["spot_id": id, "user_id": user])
            spot.ratingSum += stars - (previous?.stars ?? 0)
            spot.ratingCount += previous == nil ? 1 : 0
            try spot.update(db)
            try SpotRatingRecord(spotId: id, userId: user, stars: stars, updatedAt: now).upsert(db)
            return try views([spot], viewer: user, in: db)[0]
        }
    }

    // MARK: - Helpers

    /// SQL: spot `s` is shown to `viewer`: neither blocks the other, and moderation has not
    /// hidden it (its creator still sees it).
    static func spotShown(to viewer: String) -> String {
        "\(BlockMirror.neitherBlocks(viewer, "s.creator_id")) AND (s.hidden_at IS NULL OR s.creator_id = \(viewer))"
    }

    /// SQL conditions on spot `s` for a tag and a difficulty.
    private static func filters(
        tag: String?, difficulty: SpotDifficulty?, arguments: inout StatementArguments
    ) -> String {
        var sql = ""
        if let tag {
            sql += " AND EXISTS (SELECT 1 FROM spot_tag t WHERE t.spot_id = s.id AND t.tag = :tag)"
            _ = arguments.append(contentsOf: ["tag": tag])
        }
        if let difficulty {
            sql += " AND s.difficulty = :difficulty"
            _ = arguments.append(contentsOf: ["difficulty": difficulty.rawValue])
        }
        return sql
    }

    /// Replaces the spot's tags and photos; photos new to it are made public.
    private static func replace(
        tags: [String], images: [String], of spot: SpotRecord, outbox: Outbox, in db: Database
    ) throws {
        try SpotTagRecord.filter(SpotTagRecord.Columns.spotId == spot.id).deleteAll(db)
        for tag in tags { try SpotTagRecord(spotId: spot.id, tag: tag, createdAt: spot.createdAt).insert(db) }
        let old = Set(try SpotImageRecord.filter(SpotImageRecord.Columns.spotId == spot.id).fetchAll(db).map(\.mediaId))
        try SpotImageRecord.filter(SpotImageRecord.Columns.spotId == spot.id).deleteAll(db)
        for (position, media) in images.enumerated() {
            try SpotImageRecord(spotId: spot.id, position: position, mediaId: media).insert(db)
            if !old.contains(media) {
                try outbox.enqueue(
                    MediaAttached(
                        mediaId: media, ownerId: spot.creatorId, visibility: .public, referenceType: "spot",
                        referenceId: spot.id), in: db)
            }
        }
    }

    /// `records` with their tags, photos and the viewer's rating and check-ins: four reads for
    /// the whole list, and the creators and photos as views (from the service's copies).
    func views(_ records: [SpotRecord], viewer: String, in db: Database) throws -> [SpotView] {
        let ids = records.map(\.id)
        let tags = Dictionary(
            grouping: try SpotTagRecord.filter(ids.contains(SpotTagRecord.Columns.spotId)).fetchAll(db), by: \.spotId)
        let images = Dictionary(
            grouping: try SpotImageRecord.filter(ids.contains(SpotImageRecord.Columns.spotId))
                .order(SpotImageRecord.Columns.position).fetchAll(db), by: \.spotId)
        let ratings = Dictionary(
            uniqueKeysWithValues: try SpotRatingRecord.filter(ids.contains(SpotRatingRecord.Columns.spotId))
                .filter(SpotRatingRecord.Columns.userId == viewer).fetchAll(db).map { ($0.spotId, $0.stars) })
        let visited = Set(
            try SpotCheckInRecord.filter(ids.contains(SpotCheckInRecord.Columns.spotId))
                .filter(SpotCheckInRecord.Columns.userId == viewer).select(
                    SpotCheckInRecord.Columns.spotId, as: String.self
                )
                .fetchAll(db))
        let creators = try views.people(records.map(\.creatorId), in: db)
        let photos = try views.media(images.values.flatMap { $0.map(\.mediaId) }, viewer: viewer, in: db)
        return records.map { record in
            let ids = (images[record.id] ?? []).map(\.mediaId)
            return SpotView(
                record: record, tags: (tags[record.id] ?? []).map(\.tag).sorted(), images: ids,
                myRating: ratings[record.id], checkedIn: visited.contains(record.id), distance: nil,
                creator: creators[record.creatorId], photos: ids.compactMap { photos[$0] })
        }
    }

    /// `yyyy-MM-dd` of `date` in UTC.
    static func utcDay(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day())
    }
}
