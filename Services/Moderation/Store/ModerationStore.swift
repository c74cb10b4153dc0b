import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// The moderation service's database: reports and the objects they name, moderators'
/// actions and appeals, the audit log, blocks and mutes. One extension file per aggregate.
struct ModerationStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox
    let jobs: JobQueue
    /// Open reports weighing this much together hide a target.
    let autoHideReports: Int
    /// How many reports one user may make in an hour.
    let reportsPerHour: Int
    /// The people of queues and reports, from the service's own copy of profiles.
    let views: Views
}
