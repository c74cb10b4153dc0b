import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `media_reader`: someone besides its owner who may read a private media object (a
/// snap's streak partner), named by the service that referenced it (`media.attached`).
struct MediaReaderRecord: ServiceRecord {
    static let databaseTableName = "media_reader"

    var mediaId: String
    var userId: String

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case mediaId = "media_id"
        case userId = "user_id"
    }

    /// Whether `user` was named a reader of `media`.
    static func exists(media: String, user: String, in db: Database) throws -> Bool {
        try MediaReaderRecord.filter(key: ["media_id": media, "user_id": user]).isEmpty(db) == false
    }
}
