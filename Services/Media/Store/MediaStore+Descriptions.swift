import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// What views show of media, for a service whose copy starts empty (``MirrorFill``).
extension MediaStore {
    /// Up to `limit` media objects by id after `after`, as `media.described` says them, and the
    /// cursor of the next page (nil on the last).
    func descriptions(after: String?, limit: Int) async throws -> Page<MediaDescribed> {
        try await database.tracedRead { db in
            var request = MediaRecord.order(MediaRecord.Columns.id).limit(limit + 1)
            if let after { request = request.filter(MediaRecord.Columns.id > after) }
            let records = try request.fetchAll(db)
            return Page(records, limit: limit, item: \.describedEvent, position: \.id)
        }
    }
}
