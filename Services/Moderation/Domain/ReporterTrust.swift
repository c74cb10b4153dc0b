import Foundation

/// How much one report counts towards hiding what it reports.
///
/// A report weighs `base × (2 + upheld) / (2 + dismissed)`, kept within 0.25…2, where
/// `upheld` counts the reporter's reports a moderator acted on, `dismissed` those a moderator
/// dismissed (or whose action an appeal reversed), and `base` is 0.5 for an account under
/// seven days old that was made after what it reports was posted (the shape of accounts made
/// to pile on), 1 otherwise. A reporter with no history weighs 1, so three ordinary reporters
/// reach the default threshold of 3; two reporters with a good record (two
/// upheld each: 2) reach it together, while it takes six such fresh accounts, or twelve
/// reporters whose reports are mostly dismissed, to hide anything.
enum ReporterTrust {
    static let newAccountAge: TimeInterval = 7 * 86400
    static let range: ClosedRange<Double> = 0.25...2

    static func weight(
        upheld: Int, dismissed: Int, accountCreatedAt: Date?, objectCreatedAt: Date?, now: Date
    ) -> Double {
        var isNew = false
        if let accountCreatedAt, now.timeIntervalSince(accountCreatedAt) < newAccountAge {
            isNew = objectCreatedAt.map { accountCreatedAt > $0 } ?? true
        }
        let base = isNew ? 0.5 : 1
        let history = Double(2 + max(upheld, 0)) / Double(2 + max(dismissed, 0))
        return min(max(base * history, range.lowerBound), range.upperBound)
    }
}
