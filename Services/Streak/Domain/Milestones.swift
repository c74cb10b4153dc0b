import Contracts

/// Streak milestones and achievements.
enum Milestones {
    /// The counts that make a `streak_milestone` notification and a share card.
    static let counts = [7, 14, 30, 50, 100, 200, 365]

    /// The first milestone after `count`, if any.
    static func next(after count: Int) -> Int? { counts.first { $0 > count } }

    /// Snaps answering the day's prompt that make a Prompt Master.
    static let promptMasterSnaps = 30

    /// The profile's five achievements, from the reader's longest streak, whether they ever
    /// recovered one, and how many of their snaps answered the day's prompt.
    static func achievements(longest: Int, recoveries: Int, promptSnaps: Int) -> [Achievement] {
        func reach(_ id: String, _ title: String, _ progress: Int, _ goal: Int) -> Achievement {
            Achievement(id: id, title: title, unlocked: progress >= goal, progress: min(progress, goal), goal: goal)
        }
        return [
            reach("7_day_warrior", "7 Day Warrior", longest, 7),
            reach("30_day_legend", "30 Day Legend", longest, 30),
            reach("100_day_immortal", "100 Day Immortal", longest, 100),
            reach("first_recovery", "First Recovery", recoveries, 1),
            reach("prompt_master", "Prompt Master", promptSnaps, promptMasterSnaps),
        ]
    }
}
