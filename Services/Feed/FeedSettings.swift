import Configuration
import ServiceKit

/// Feed's own settings.
///
/// Keys:
/// - `feed.nearby.maxRadiusM` (default 50000): the largest `radius_m` a nearby query accepts.
struct FeedSettings: Sendable {
    let maxRadius: Int

    init(reader: ConfigReader) throws {
        self.maxRadius = try reader.integer("feed.nearby.maxRadiusM", default: 50_000, in: 1...20_000_000)
    }
}
