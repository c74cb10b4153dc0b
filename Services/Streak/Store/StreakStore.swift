import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// The streak service's database: friend requests, streaks, their members and snaps, recovery
/// tokens, snap windows, prompts and milestones (and, through the kit, a copy of blocks and the
/// deadline and window jobs). One extension file per aggregate.
struct StreakStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox
    let jobs: JobQueue
    let settings: StreakSettings
    /// Draws the snap windows.
    let entropy: any Entropy
    /// People and media beside the ids of every list, from the service's own copies.
    let views: Views
}
