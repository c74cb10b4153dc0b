import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `media_reference`: a service referenced a media object (a post, a snap), so it
/// hears `media.ready` or `media.rejected` for it.
struct MediaReferenceRecord: ServiceRecord {
    static let databaseTableName = "media_reference"

    var mediaId: String
    /// The referencing service's name.
    var service: String
    var referenceType: String
    var referenceId: String

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case service
        case mediaId = "media_id"
    }
}
