import Foundation
import GRDB
import ServiceKit

/// The moderation service's database: reports, per-target tallies, blocks. One extension file
/// per aggregate.
struct ModerationStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox
    /// Reports from this many distinct users hide a target.
    let autoHideReports: Int
}
