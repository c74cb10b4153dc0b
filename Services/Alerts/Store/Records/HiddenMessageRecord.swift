import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `hidden_message`: a message one person does not see, because they deleted it for
/// themselves, because it held words they muted when it arrived, or because reports or a
/// moderator hid it (`moderated`: a moderator's dismissal or a reversed appeal shows it again).
struct HiddenMessageRecord: ServiceRecord {
    static let databaseTableName = "hidden_message"

    enum Reason: String, Codable, DatabaseValueConvertible {
        case deleted
        case muted
        case moderated
    }

    var messageId: String
    var userId: String
    var reason: Reason
}
