import Contracts
import GRDB
import ServiceHTTP

/// A row of `kit_profile`: what lists show of a person, as auth last said (`profile.changed`,
/// or a page of its export).
public struct ProfileMirrorRecord: ServiceRecord, Equatable, Sendable {
    public static let databaseTableName = "kit_profile"

    public var userId: String
    public var username: String?
    public var displayName: String
    public var avatarMediaId: String?
    public var deleted: Bool
    public var revision: Int

    public init(
        userId: String, username: String?, displayName: String, avatarMediaId: String?, deleted: Bool, revision: Int
    ) {
        self.userId = userId
        self.username = username
        self.displayName = displayName
        self.avatarMediaId = avatarMediaId
        self.deleted = deleted
        self.revision = revision
    }

    /// The row `event` says.
    public init(_ event: ProfileChanged) {
        self.init(
            userId: event.userId, username: event.username, displayName: event.displayName,
            avatarMediaId: event.avatarMediaId, deleted: event.deleted, revision: event.revision)
    }

    /// Read by hand rather than through `Decodable`: every list that shows people reads
    /// through here.
    public init(row: Row) throws {
        userId = try row.decode(forColumn: "user_id")
        username = try row.decode(forColumn: "username")
        displayName = try row.decode(forColumn: "display_name")
        avatarMediaId = try row.decode(forColumn: "avatar_media_id")
        deleted = try row.decode(forColumn: "deleted")
        revision = try row.decode(forColumn: "revision")
    }

    /// The columns queries name.
    public enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case revision
    }
}
