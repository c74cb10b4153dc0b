import Foundation
import GRDB
import ServiceKit

/// The streak service's database: friend requests, streaks, their members and snaps, recovery
/// tokens (and, through the kit, a copy of blocks and the deadline jobs). One extension file
/// per aggregate.
struct StreakStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox
    let jobs: JobQueue
}
