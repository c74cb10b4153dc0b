import Contracts
import Foundation
import ServiceHTTP

/// What a moderator's action and an appeal must say, checked before anything is stored.
enum ModerationRules {
    static let reasonLength = 1...500
    static let statementLength = 1...1000
    /// Seven days.
    static let defaultSuspensionHours = 168
    static let suspensionHours = 1...8760
    /// What `remove` can take away: every object, hidden by its owner (held media stays held),
    /// restorable on appeal; not a person (ban them).
    static let removable = Set(ReportTargetType.allCases).subtracting([.user])

    /// The trimmed text of `field`, within `length`, or a 400.
    static func text(_ value: String, _ field: String, within length: ClosedRange<Int>) throws -> String {
        let text = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard length.contains(text.unicodeScalars.count) else {
            throw ServiceError.validation("`\(field)` must be \(length.lowerBound) to \(length.upperBound) characters.")
        }
        return text
    }

    /// The action's checked parts: its reason and, for a suspension, how long it lasts.
    static func validate(_ body: ModerationActionCreate) throws -> (reason: String, duration: TimeInterval?) {
        let reason = try text(body.reason, "reason", within: reasonLength)
        if body.action == .remove, !removable.contains(body.targetType) {
            throw ServiceError.validation(
                "`remove` takes an object, not a person: warn, suspend or ban the user."
            )
        }
        guard body.action == .suspend else {
            guard body.durationHours == nil else {
                throw ServiceError.validation("`durationHours` is for `suspend` only.")
            }
            return (reason, nil)
        }
        let hours = body.durationHours ?? defaultSuspensionHours
        guard suspensionHours.contains(hours) else {
            throw ServiceError.validation(
                "`durationHours` must be \(suspensionHours.lowerBound) to \(suspensionHours.upperBound).")
        }
        return (reason, TimeInterval(hours) * 3600)
    }
}
