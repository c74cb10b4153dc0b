import Contracts
import GRDB
import ServiceHTTP

/// A row of `kit_media`: what views show of a media object, as media last said
/// (`media.described`, or a page of its export).
public struct MediaMirrorRecord: ServiceRecord, Equatable, Sendable {
    public static let databaseTableName = "kit_media"

    public var mediaId: String
    public var ownerId: String
    public var kind: MediaKind
    public var status: MediaStatus
    public var width: Int?
    public var height: Int?
    public var durationMs: Int?
    public var placeholder: String?
    /// The variants that exist, comma-separated (`thumbnail,display`).
    public var variants: String
    public var revision: Int

    public init(_ event: MediaDescribed) {
        mediaId = event.mediaId
        ownerId = event.ownerId
        kind = event.kind
        status = event.status
        width = event.width
        height = event.height
        durationMs = event.durationMs
        placeholder = event.placeholder
        variants = event.variants.map(\.rawValue).joined(separator: ",")
        revision = event.revision
    }

    /// Read by hand rather than through `Decodable`: every list that shows media reads
    /// through here.
    public init(row: Row) throws {
        mediaId = try row.decode(forColumn: "media_id")
        ownerId = try row.decode(forColumn: "owner_id")
        kind = try row.decode(forColumn: "kind")
        status = try row.decode(forColumn: "status")
        width = try row.decode(forColumn: "width")
        height = try row.decode(forColumn: "height")
        durationMs = try row.decode(forColumn: "duration_ms")
        placeholder = try row.decode(forColumn: "placeholder")
        variants = try row.decode(forColumn: "variants")
        revision = try row.decode(forColumn: "revision")
    }

    /// The variants that exist.
    public var variantSet: Set<MediaVariant> {
        Set(variants.split(separator: ",").compactMap { MediaVariant(rawValue: String($0)) })
    }

    /// The columns queries name.
    public enum Columns: String, ColumnExpression {
        case mediaId = "media_id"
        case revision
    }
}
