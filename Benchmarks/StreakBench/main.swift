import Foundation
import GRDB
import ServiceHTTP
import ServiceStore
import TestSupport

// The streak deadline job at scale, against the real streak executable of a release build
// (PINHOLE_BIN_DIR) on the real clock. Run through ./scripts/bench-streaks:
//
//   streak-bench [pairs=1000000]
//
// Each pass seeds `pairs` streaks straight into streak's SQLite store, as the service would
// have left them (two members each, kept through the previous day with a count to lose, with
// their deadline jobs), in a time zone picked so that the job is due right now, then starts
// streak and prints how long it took from launch to the last row, the jobs a second, and the
// process's CPU and memory:
//   - at-risk: a zone where it is now between 22:00 and midnight; 30 % of the pairs were kept
//     today already (their job is tomorrow's), 50 % have one snap of today, 20 % none: 70 % are
//     warned;
//   - breaking: a zone where yesterday is over, nobody snapped yesterday: every pair breaks;
//   - at rest: streak over the store both passes left, every deadline hours away, its CPU for
//     30 s.
// Alerts is stopped, so the events wait in streak's outbox (delivery is measured by
// ./scripts/bench-notifications). libfaketime is not used: under it every process burns CPU.

let arguments = Array(CommandLine.arguments.dropFirst())
let pairs = arguments.first.flatMap { Int($0) } ?? 1_000_000

func cpuSeconds(of pid: Int32?) -> Double {
    guard let pid, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
    return ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

func uuid(_ kind: UInt8, _ index: Int) -> String {
    String(format: "%08x-0000-4000-8000-%012x", Int(kind) << 24 | index >> 32, index & 0xFFFF_FFFF_FFFF)
}

/// A zone whose local time now is within `hours` (from its start, in minutes, the earliest),
/// with the local day's text and the day before's.
func zone(whereNowIsBetween hours: Range<Int>) -> (zone: String, today: String, yesterday: String, minute: Int)? {
    let now = Date()
    var best: (zone: String, today: String, yesterday: String, minute: Int)?
    for identifier in TimeZone.knownTimeZoneIdentifiers {
        guard let zone = TimeZone(identifier: identifier) else { continue }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: now)
        let minute = parts.hour! * 60 + parts.minute!
        guard hours.contains(parts.hour!), minute < best?.minute ?? .max else { continue }
        let yesterday = calendar.dateComponents([.year, .month, .day], from: now.addingTimeInterval(-86_400))
        func text(_ p: DateComponents) -> String { String(format: "%04d-%02d-%02d", p.year!, p.month!, p.day!) }
        best = (identifier, text(parts), text(yesterday), minute)
    }
    return best
}

print("streak-bench: \(pairs) pairs a pass")
var environment = ["LOG_LEVEL": "warning", "RATELIMIT_ENABLED": "false"]
environment[ConfigKeys.environmentName("streak.windows.enforced")] = "false"
let stack = try await Stack.start(publicTLS: false, environment: environment)
do {
    await stack.kill(.streak)
    await stack.kill(.alerts)
    let path = stack.directory.url.appendingPathComponent("streak/streak.sqlite").path
    var configuration = Configuration()
    configuration.busyMode = .timeout(30)
    // A million pairs are seeded in one transaction: with SQLite's default 2 MB cache it spills
    // and re-reads its own pages (hundreds of GB read at a million).
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -1048576") }
    let database = try DatabaseQueue(path: path, configuration: configuration)

    /// Seeds `pairs` streaks (ids from `first`) due in `zone`, in one transaction.
    func seed(first: Int, zone: String, today: String, yesterday: String, atRisk: Bool) async throws {
        let seeding = ContinuousClock.now
        let created = Date().addingTimeInterval(-90 * 86_400)
        try await database.write { db in
            let member = try db.makeStatement(
                sql: "INSERT INTO member (user_id, display_name, time_zone, updated_at) VALUES (?, ?, ?, ?)")
            let streak = try db.makeStatement(
                sql: """
                    INSERT INTO streak (id, user_a, user_b, count, longest_count, last_completed_date, status, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, 'active', ?)
                    """)
            let snap = try db.makeStatement(
                sql: """
                    INSERT INTO streak_snap (streak_id, user_id, local_date, snap_id, ready, created_at)
                    VALUES (?, ?, ?, ?, 1, ?)
                    """)
            let job = try db.makeStatement(
                sql:
                    "INSERT INTO kit_job (kind, key, payload, due_at, created_at) VALUES ('streak.deadline', ?, ?, ?, ?)"
            )
            let now = Date()
            let dayBefore = LocalDayText.before(yesterday)
            for index in first..<(first + pairs) {
                let (a, b, id) = (uuid(0xA, index), uuid(0xB, index), uuid(0x5, index))
                try member.execute(arguments: [a, "A\(index)", zone, created])
                try member.execute(arguments: [b, "B\(index)", zone, created])
                let count = 1 + index % 60
                // At-risk pass: 30 % kept today, 50 % one snap of today, 20 % none. Breaking
                // pass: kept through the day before yesterday, nothing yesterday.
                let bucket = atRisk ? index % 10 : 9
                let keptToday = bucket < 3
                let last = atRisk ? (keptToday ? today : yesterday) : dayBefore
                try streak.execute(arguments: [
                    id, a, b, keptToday ? count + 1 : count, keptToday ? count + 1 : count, last, created,
                ])
                if atRisk, bucket < 8 { try snap.execute(arguments: [id, a, today, uuid(0xC, index), created]) }
                if keptToday { try snap.execute(arguments: [id, b, today, uuid(0xD, index), created]) }
                let due = keptToday ? now.addingTimeInterval(86_400) : now
                try job.execute(arguments: [id, Data(#"{"streakId":"\#(id)"}"#.utf8), due, created])
            }
        }
        let elapsed = ContinuousClock.now - seeding
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        print(String(format: "  seeded in %.1f s; store %.0f MiB", seconds(elapsed), Double(size) / 1_048_576))
    }

    /// Starts streak and waits until `sql` counts `expected` rows. The rows are counted (a scan
    /// of the table) only once no deadline is due any more: polling the count itself took half
    /// a core from the pass.
    func pass(_ name: String, expected: Int, counting sql: String) async throws {
        let started = ContinuousClock.now
        try stack.launch(.streak)
        let pid = stack.pid(of: .streak)
        var done = 0
        var peak = 0.0
        while done < expected {
            try await Task.sleep(for: .milliseconds(250))
            peak = max(peak, memory(of: pid).rss)
            done = try await database.read { db in
                let due = try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM kit_job WHERE failed_at IS NULL AND due_at <= ?
                                       AND kind = 'streak.deadline')
                        """, arguments: [Date()])
                return due == true ? 0 : try Int.fetchOne(db, sql: sql) ?? 0
            }
            if ContinuousClock.now - started > .seconds(1800) {
                throw StackError("\(name): \(done) of \(expected) after 30 min")
            }
        }
        let elapsed = seconds(ContinuousClock.now - started)
        let used = memory(of: pid)
        let cpu = cpuSeconds(of: pid)
        print(
            String(
                format:
                    "%@: %d streaks in %.1f s from launch (%.0f a second; streak CPU %.1f s); RSS %.0f MiB, peak %.0f MiB",
                name, expected, elapsed, Double(expected) / elapsed, cpu, used.rss, used.peak))
        await stack.kill(.streak)
    }

    guard let evening = zone(whereNowIsBetween: 22..<23) ?? zone(whereNowIsBetween: 23..<24) else {
        throw StackError("no time zone is between 22:00 and midnight now")
    }
    print("at-risk pass: \(evening.zone), local \(evening.minute / 60):\(String(format: "%02d", evening.minute % 60))")
    try await seed(first: 0, zone: evening.zone, today: evening.today, yesterday: evening.yesterday, atRisk: true)
    let warned = pairs - (pairs / 10) * 3 - min(pairs % 10, 3)
    try await pass(
        "at-risk pass", expected: warned,
        counting: "SELECT count(*) FROM streak WHERE warned_day = '\(evening.today)'")

    guard let morning = zone(whereNowIsBetween: 1..<20) else { throw StackError("no zone past 01:00") }
    print("breaking pass: \(morning.zone), local \(morning.minute / 60):\(String(format: "%02d", morning.minute % 60))")
    try await seed(first: pairs, zone: morning.zone, today: morning.today, yesterday: morning.yesterday, atRisk: false)
    try await pass(
        "breaking pass", expected: pairs, counting: "SELECT count(*) FROM streak WHERE status = 'broken'")

    let outbox = try database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM kit_outbox_event") ?? 0 }
    print("events waiting for alerts: \(outbox)")

    // At rest: every streak's next deadline is hours away. The events are dropped first, so
    // the outbox's retries towards the stopped alerts are not counted.
    let waiting = try database.write { db in
        try db.execute(sql: "DELETE FROM kit_outbox_event")
        return try Int.fetchOne(db, sql: "SELECT count(*) FROM kit_job") ?? 0
    }
    try stack.launch(.streak)
    let pid = stack.pid(of: .streak)
    try await Task.sleep(for: .seconds(5))
    let before = cpuSeconds(of: pid)
    try await Task.sleep(for: .seconds(30))
    print(
        String(
            format: "at rest with %d jobs waiting: streak CPU %.2f s in 30 s; RSS %.0f MiB", waiting,
            cpuSeconds(of: pid) - before, memory(of: pid).rss))
    await stack.kill(.streak)
} catch {
    print("streak-bench failed: \(error)\n" + stack.logs(of: .streak).suffix(20).joined(separator: "\n"))
    await stack.stop()
    exit(1)
}
await stack.stop()

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// The day before a `yyyy-MM-dd` day.
enum LocalDayText {
    static func before(_ text: String) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = text.split(separator: "-").compactMap { Int($0) }
        let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))!
        let day = calendar.dateComponents([.year, .month, .day], from: date.addingTimeInterval(-86_400))
        return String(format: "%04d-%02d-%02d", day.year!, day.month!, day.day!)
    }
}
