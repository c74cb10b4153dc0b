import Foundation
import GRDB
import ServiceKit

/// A row of `hidden_message`: a message one person does not see, because they deleted it for
/// themselves or because it held words they muted when it arrived.
struct HiddenMessageRecord: ServiceRecord {
    static let databaseTableName = "hidden_message"

    enum Reason: String, Codable, DatabaseValueConvertible {
        case deleted
        case muted
    }

    var messageId: String
    var userId: String
    var reason: Reason
}
