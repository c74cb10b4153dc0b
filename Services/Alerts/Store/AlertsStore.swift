import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// The alerts service's database: each user's notification centre, push devices and direct
/// messages, and tenants' duress alerts. One extension file per aggregate.
struct AlertsStore: Sendable {
    let database: DatabasePool
    /// Events alerts sends: `media.attached` for a message's photo or video.
    let outbox: Outbox
    /// People and media beside the ids of every list, from the service's own copies.
    let views: Views
}
