import Foundation
import GRDB
import ServiceKit

/// The streak service's database: friend requests, streaks, snaps, recovery tokens (and,
/// through the kit, a copy of blocks). One extension file per aggregate.
struct StreakStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox
}
