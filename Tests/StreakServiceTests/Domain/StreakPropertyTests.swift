import Contracts
import Foundation
import PropertyBased
import Testing

@testable import StreakService

/// Property tests of the streak rules (``StreakProgress``) over random pairs of time zones
/// (UTC−12 … UTC+14, zones whose clocks change), random days kept or missed, random snap times
/// within each sender's local day and random clocks for the deadline job. Each story is
/// replayed as the store replays it: every snap settles the streak, records the snap and
/// counts the day once both have one; the job settles at its own next check (or, when the
/// machine was down, only at random instants); a read settles a copy. The model they check is
/// written down in docs/ARCHITECTURE.md ("Streak days: the model the property tests check").
@Suite struct StreakPropertyTests {
    static let members = ["a", "b"]
    static let zones = [
        "Etc/GMT+12", "Pacific/Pago_Pago", "America/St_Johns", "America/New_York", "America/Santiago", "UTC",
        "Europe/London", "Africa/Casablanca", "Asia/Tehran", "Asia/Kolkata", "Asia/Tokyo", "Australia/Lord_Howe",
        "Pacific/Chatham", "Pacific/Kiritimati",
    ]

    /// What a day holds: both snapped (7 in 10), one of them, or neither.
    static func senders(_ outcome: Int) -> Set<String> {
        switch outcome {
        case 0..<7: ["a", "b"]
        case 7: ["a"]
        case 8: ["b"]
        default: []
        }
    }

    /// Two friends and their days: the first local day, and for each day who snapped and when
    /// (a fraction of each sender's own local day).
    struct Story: CustomStringConvertible, Sendable {
        var zones: [String]
        var first: LocalDay
        var outcomes: [Int]
        var times: [Double]

        var pair: StreakPair {
            StreakPair(
                members: StreakPropertyTests.members,
                zones: Dictionary(
                    uniqueKeysWithValues: zip(StreakPropertyTests.members, zones.map { TimeZone(identifier: $0)! })))
        }
        func day(_ index: Int) -> LocalDay { first.adding(days: index) }
        func complete(_ index: Int) -> Bool { StreakPropertyTests.senders(outcomes[index]).count == 2 }
        /// Just after the last day closed for both.
        var end: Date { pair.closes(day(outcomes.count - 1)).addingTimeInterval(1) }
        var start: Date { zones.map { first.start(in: TimeZone(identifier: $0)!) }.min()! }

        /// Every snap of the story, in the order they happen.
        var snaps: [(at: Date, user: String, day: Int)] {
            outcomes.indices.flatMap { index in
                StreakPropertyTests.senders(outcomes[index]).map { user in
                    let zone = pair.zone(of: user)
                    let start = day(index).start(in: zone)
                    let length = day(index).end(in: zone).timeIntervalSince(start)
                    let fraction = times[(2 * index + (user == "a" ? 0 : 1)) % times.count]
                    return (start.addingTimeInterval((fraction * (length - 1)).rounded(.down)), user, index)
                }
            }.sorted { $0.at < $1.at }
        }

        var description: String {
            "\(zones) from \(first): \(outcomes.map { ["ab", "a", "b", "-"][min(max($0 - 6, 0), 3)] })"
        }
    }

    static let story = zip(
        Gen.int(in: 0...(zones.count - 1)).array(of: 2), Gen.int(in: 0...364), Gen.int(in: 0...9).array(of: 2...21),
        Gen.double(in: 0...1).array(of: 42)
    ).map { zones, offset, outcomes, times in
        Story(
            zones: zones.map { StreakPropertyTests.zones[$0] }, first: LocalDay("2026-01-01")!.adding(days: offset),
            outcomes: outcomes, times: times)
    }

    /// Replays `story` as the service would. `runs` are instants (fractions of the story) at
    /// which the job (or a late copy of it) settles too; a `punctual` job also runs at each
    /// next check. `recovery` is tried once, at its instant. Answers the streak after the
    /// story's end, every effect, and the outcome of each recovery tried.
    static func replay(
        _ story: Story, runs: [Double], punctual: Bool, recoveries: [Date] = []
    ) -> (
        progress: StreakProgress, effects: [StreakProgress.Effect],
        recovered: [Result<Int, StreakProgress.RecoveryRefusal>]
    ) {
        let pair = story.pair
        var progress = StreakProgress(
            status: .active, count: 0, longest: 0, lastKept: nil, lastBreak: nil, recoveryUsed: false, warned: nil,
            ended: false)
        var snapped: [LocalDay: Set<String>] = [:]
        var effects: [StreakProgress.Effect] = []
        var recovered: [Result<Int, StreakProgress.RecoveryRefusal>] = []
        let span = story.end.timeIntervalSince(story.start)
        enum Step { case snap(String, Int), run, recover }
        var steps: [(at: Date, step: Step)] = story.snaps.map { ($0.at, .snap($0.user, $0.day)) }
        steps += runs.map { (story.start.addingTimeInterval($0 * span), .run) }
        steps += recoveries.map { ($0, .recover) }
        steps.append((story.end, .run))
        steps.sort { $0.at < $1.at }
        let lookup: (LocalDay) -> Set<String> = { snapped[$0] ?? [] }
        for (at, step) in steps {
            // The punctual job has run at each check that fell due before this moment.
            while punctual, let check = progress.nextCheck(pair: pair), check <= at {
                effects += progress.settle(at: check, pair: pair, snapped: lookup)
            }
            switch step {
            case .snap(let user, let index):
                effects += progress.settle(at: at, pair: pair, snapped: lookup)
                snapped[story.day(index), default: []].insert(user)
                if snapped[story.day(index)]!.count == 2 { effects += progress.keep(story.day(index)) }
            case .run:
                effects += progress.settle(at: at, pair: pair, snapped: lookup)
            case .recover:
                effects += progress.settle(at: at, pair: pair, snapped: lookup)
                do {
                    let made = try progress.recover(at: at, pair: pair, snapped: lookup)
                    effects += made
                    recovered.append(.success(progress.count))
                } catch let refusal as StreakProgress.RecoveryRefusal {
                    recovered.append(.failure(refusal))
                } catch {
                    Issue.record(error)
                }
            }
        }
        return (progress, effects, recovered)
    }

    /// The model's answer for a story where the days in `bridged` were restored by a recovery
    /// (they join the run but add nothing to the count): each break (a missed day right after
    /// a kept one, with the count it had and who missed it), the final count and the longest.
    static func model(
        _ story: Story, bridged: Set<Int> = []
    ) -> (breaks: [StreakProgress.Break], count: Int, longest: Int) {
        var breaks: [StreakProgress.Break] = []
        var run = 0
        var longest = 0
        var previousKept = false
        for index in story.outcomes.indices {
            if story.complete(index) || bridged.contains(index) {
                run += story.complete(index) && !bridged.contains(index) ? 1 : 0
                longest = max(longest, run)
                previousKept = true
            } else {
                if previousKept && run > 0 {
                    breaks.append(
                        .init(
                            day: story.day(index), count: run,
                            missedBy: members.filter { !senders(story.outcomes[index]).contains($0) }))
                }
                run = 0
                previousKept = false
            }
        }
        return (breaks, run, longest)
    }

    static func breaks(_ effects: [StreakProgress.Effect]) -> [StreakProgress.Break] {
        effects.compactMap { if case .broken(let missed, _) = $0 { missed } else { nil } }
    }

    @Test func noStreakBreaksWhileBothSnapEachOfTheirDaysAndEachMissedDayBreaksItOnce() async {
        await propertyCheck(
            count: 300, input: Self.story, Gen.double(in: 0...1).array(of: 0...30), Gen.bool
        ) { story, runs, punctual in
            let (progress, effects, _) = Self.replay(story, runs: runs, punctual: punctual)
            let model = Self.model(story)
            let days = story.outcomes.count
            #expect(Self.breaks(effects) == model.breaks, "\(story)")
            #expect(progress.count == model.count && progress.longest == model.longest, "\(story)")
            #expect(progress.status == (model.breaks.isEmpty || story.complete(days - 1) ? .active : .broken))
            // Each day counted once, in order, and never a day both had not snapped for.
            let kept = effects.compactMap { if case .kept(let day, _) = $0 { day } else { nil } }
            #expect(kept == story.outcomes.indices.filter(story.complete).map(story.day), "\(story)")
            // A warning goes out at most once a day, never for a day both had already snapped.
            let warned = effects.compactMap {
                if case .atRisk(let day, _, let waiting) = $0 { (day, waiting) } else { nil }
            }
            #expect(Set(warned.map(\.0)).count == warned.count, "\(story)")
            #expect(warned.allSatisfy { !$0.1.isEmpty }, "\(story)")

            // The same story read once at the end, with no job at all, agrees with the job.
            let read = Self.replay(story, runs: [], punctual: false).progress
            #expect(read.count == progress.count && read.status == progress.status, "\(story)")
            #expect(read.longest == progress.longest && read.lastKept == progress.lastKept, "\(story)")
            #expect(read.lastBreak == progress.lastBreak, "\(story)")
        }
    }

    @Test func aRecoveryInItsWindowRestoresTheBrokenStreakExactlyOnce() async {
        let broken = zip(
            Self.story, Gen.int(in: 1...10), Gen.int(in: 7...9), Gen.double(in: 0...1), Gen.double(in: 0...1)
        ).map { story, kept, missed, when, again in
            var story = story
            // `kept` days both snapped, then one missed: the streak breaks with a count to restore.
            story.outcomes = Array(repeating: 0, count: kept) + [missed] + story.outcomes
            return (story, kept, when, again)
        }
        await propertyCheck(count: 300, input: broken, Gen.bool) { input, punctual in
            let (story, kept, when, again) = input
            let missed = story.day(kept)
            let pair = story.pair
            // Any time from the break until the day after the missed one closes, then again before
            // the story ends.
            let opens = pair.closes(missed)
            let closes = pair.closes(missed.next)
            // (Half a second off the whole seconds snaps are sent at, so no two steps tie.)
            let first = opens.addingTimeInterval((when * (closes.timeIntervalSince(opens) - 1)).rounded(.down) + 0.5)
            let second = first.addingTimeInterval((again * story.end.timeIntervalSince(first)).rounded(.down))
            let (progress, effects, recovered) = Self.replay(
                story, runs: [], punctual: punctual, recoveries: [first, second])

            // Restored once: the count it had (plus the day after, if both kept it already).
            guard case .success(let restored) = recovered.first else {
                Issue.record("the recovery was refused: \(recovered) for \(story)")
                return
            }
            let keptAfter =
                story.complete(kept + 1) && story.snaps.filter { $0.day == kept + 1 }.allSatisfy { $0.at < first }
            #expect(restored == kept + (keptAfter ? 1 : 0), "\(story)")
            #expect(recovered.dropFirst().first == .failure(.alreadyUsed), "\(story)")
            #expect(effects.filter { if case .recovered = $0 { true } else { false } }.count == 1)
            #expect(progress.recoveryUsed)

            // Afterwards the story goes on as if the missed day had been bridged: it broke once.
            let model = Self.model(story, bridged: [kept])
            #expect(Self.breaks(effects) == [Self.model(story).breaks[0]] + model.breaks, "\(story)")
            #expect(Self.breaks(effects).filter { $0.day == missed }.count == 1)
            #expect(progress.count == model.count && progress.longest == model.longest, "\(story)")
        }
    }

    @Test func aRecoveryAfterItsWindowIsRefusedAndChangesNothing() async {
        let broken = zip(Self.story, Gen.int(in: 1...10), Gen.int(in: 7...9), Gen.double(in: 0...1)).map {
            story, kept, missed, when in
            var story = story
            story.outcomes = Array(repeating: 0, count: kept) + [missed] + story.outcomes
            return (story, kept, when)
        }
        await propertyCheck(count: 200, input: broken) { input in
            let (story, kept, when) = input
            let pair = story.pair
            let closes = pair.closes(story.day(kept).next)
            let late = closes.addingTimeInterval(
                (when * (pair.closes(story.day(kept + 2)).timeIntervalSince(closes) - 1)).rounded(.down))
            let (progress, effects, recovered) = Self.replay(story, runs: [], punctual: true, recoveries: [late])
            #expect(recovered == [.failure(.windowClosed)], "\(story)")
            let model = Self.model(story)
            #expect(Self.breaks(effects) == model.breaks, "\(story)")
            #expect(progress.count == model.count && !progress.recoveryUsed, "\(story)")
        }
    }
}
