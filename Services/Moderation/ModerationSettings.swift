import Configuration
import ServiceKit

/// Moderation's own settings.
///
/// Keys:
/// - `moderation.autoHideReports` (default 3): reports from this many distinct users hide a
///   post (Unum's rule).
struct ModerationSettings: Sendable {
    let autoHideReports: Int

    init(reader: ConfigReader) throws {
        self.autoHideReports = try reader.integer("moderation.autoHideReports", default: 3, in: 1...1000)
    }
}
