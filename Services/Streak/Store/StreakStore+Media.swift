import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// What media's answers about a snap's photo or video do: a snap counts for its day only once
/// its media is ready, and not at all when it is rejected.
extension StreakStore {
    /// Applies `media.ready`: the snaps of that media start to count. Each streak is settled
    /// first, so a day that closed before the media was ready stays missed.
    func mediaReady(_ event: MediaReady, at now: Date, in db: Database) throws {
        for var row in try Self.rows(of: event.mediaId, owner: event.ownerId, in: db) where !row.ready {
            guard var streak = try StreakRecord.fetchOne(db, key: row.streakId) else { continue }
            try settle(&streak, at: now, in: db)
            row.ready = true
            try row.update(db)
            try keep(LocalDay(row.localDate)!, of: &streak, at: now, in: db)
        }
    }

    /// Applies `media.rejected`: the snaps of that media are withdrawn, so their sender may
    /// snap again for the day.
    static func mediaRejected(_ event: MediaRejected, in db: Database) throws {
        let snaps = snaps(of: event.mediaId, owner: event.ownerId)
        let ids = try String.fetchAll(db, snaps.select(SnapRecord.Columns.id))
        try StreakSnapRecord.filter(ids.contains(StreakSnapRecord.Columns.snapId)).deleteAll(db)
        try snaps.deleteAll(db)
    }

    /// `owner`'s snaps of `media` (an id that is not theirs matches none).
    static func snaps(of media: String, owner: String) -> QueryInterfaceRequest<SnapRecord> {
        SnapRecord.filter(SnapRecord.Columns.mediaId == media && SnapRecord.Columns.userId == owner)
    }

    /// The streak rows of `owner`'s snaps of `media`.
    static func rows(of media: String, owner: String, in db: Database) throws -> [StreakSnapRecord] {
        let ids = try String.fetchAll(db, snaps(of: media, owner: owner).select(SnapRecord.Columns.id))
        return try StreakSnapRecord.filter(ids.contains(StreakSnapRecord.Columns.snapId)).fetchAll(db)
    }
}
