import Configuration
import ServiceKit

/// Feed's own settings.
///
/// Keys:
/// - `feed.nearby.maxRadiusM` (default 50000): the largest `radius_m` a nearby query accepts.
/// - `feed.requireVerifiedPhone` (default false): only users with a verified phone number may
///   post (Agora); others get 403 `PHONE_VERIFICATION_REQUIRED`.
struct FeedSettings: Sendable {
    let maxRadius: Int
    let requireVerifiedPhone: Bool

    init(reader: ConfigReader) throws {
        self.maxRadius = try reader.integer("feed.nearby.maxRadiusM", default: 50_000, in: 1...20_000_000)
        self.requireVerifiedPhone = try reader.boolean("feed.requireVerifiedPhone", default: false)
    }
}
