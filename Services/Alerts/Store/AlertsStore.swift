import Foundation
import GRDB
import ServiceKit

/// The alerts service's database: each user's notification centre and push devices, and
/// tenants' duress alerts. One extension file per aggregate.
struct AlertsStore: Sendable {
    let database: DatabasePool
}
