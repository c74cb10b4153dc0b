import Configuration
import Foundation
import ServiceHTTP

/// Streak's own settings.
///
/// Keys:
/// - `streak.windows.enforced` (default true): snaps are accepted only in the sender's daily
///   window with its 30-minute grace; false accepts them all day (windows
///   are still drawn and announced).
/// - `streak.prompts.file` (optional): the operator's daily prompts, a JSON array of
///   `{"text", "category", "emoji"}` taken one per local day in order; default: 102 built-in
///   prompts in six categories.
/// - `streak.cards.watermark` (default `StreakSnap`): the text at the bottom of share cards.
struct StreakSettings: Sendable {
    var windowsEnforced: Bool
    var prompts: PromptBook
    var watermark: String

    init(windowsEnforced: Bool = true, prompts: PromptBook = .builtIn, watermark: String = "StreakSnap") {
        self.windowsEnforced = windowsEnforced
        self.prompts = prompts
        self.watermark = watermark
    }

    init(reader: ConfigReader) throws {
        windowsEnforced = try reader.boolean("streak.windows.enforced", default: true)
        watermark = reader.string(forKey: "streak.cards.watermark", default: "StreakSnap")
        guard watermark.count <= 40 else { throw ConfigurationError("streak.cards.watermark is at most 40 characters") }
        if let file = reader.string(forKey: "streak.prompts.file") {
            do {
                prompts = try PromptBook.load(URL(fileURLWithPath: file))
            } catch {
                throw ConfigurationError("streak.prompts.file: \(error)")
            }
        } else {
            prompts = .builtIn
        }
    }
}
