import Configuration
import ServiceHTTP

/// Moderation's own settings.
///
/// Keys:
/// - `moderation.autoHideReports` (default 3): open reports weighing this much together hide
///   what they report (three ordinary reporters; each weighs its reporter's trust,
///   ``ReporterTrust``).
/// - `moderation.reportsPerHour` (default 20): how many reports one user may make in an hour.
struct ModerationSettings: Sendable {
    let autoHideReports: Int
    let reportsPerHour: Int

    init(reader: ConfigReader) throws {
        self.autoHideReports = try reader.integer("moderation.autoHideReports", default: 3, in: 1...1000)
        self.reportsPerHour = try reader.integer("moderation.reportsPerHour", default: 20, in: 1...10_000)
    }
}
