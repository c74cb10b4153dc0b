import GRDB
import ServiceHTTP
import ServiceStore

extension StreakStore {
    /// Append-only; never edit a migration that has shipped.
    static func registerMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("streak.v1.friends-streaks-snaps") { db in
            try db.create(table: "friend_request") { table in
                table.column("id", .text).primaryKey()
                table.column("from_user_id", .text).notNull()
                table.column("to_user_id", .text).notNull()
                table.column("status", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.column("responded_at", .datetime)
            }
            try db.create(index: "friend_request_to", on: "friend_request", columns: ["to_user_id", "status"])
            try db.create(index: "friend_request_from", on: "friend_request", columns: ["from_user_id", "status"])
            try db.create(table: "streak") { table in
                table.column("id", .text).primaryKey()
                table.column("user_a", .text).notNull()
                table.column("user_b", .text).notNull().indexed()
                table.column("count", .integer).notNull().defaults(to: 0)
                table.column("longest_count", .integer).notNull().defaults(to: 0)
                table.column("last_completed_date", .text)
                table.column("status", .text).notNull()
                table.column("broken_reason", .text)
                table.column("created_at", .datetime).notNull()
                table.uniqueKey(["user_a", "user_b"])
            }
            try db.create(table: "snap") { table in
                table.column("id", .text).primaryKey()
                table.column("user_id", .text).notNull()
                table.column("media_id", .text).notNull()
                table.column("local_date", .text).notNull()
                table.column("time_zone", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.uniqueKey(["user_id", "local_date"])
            }
            // A local copy of moderation's blocks, fed by events.
            try db.create(table: "block") { table in
                table.column("blocker_id", .text).notNull()
                table.column("blocked_id", .text).notNull()
                table.primaryKey(["blocker_id", "blocked_id"])
            }
        }

        migrator.registerMigration("streak.v2.recovery-tokens") { db in
            // A ledger: +n per purchase (id = the purchase id, so one credit per purchase),
            // later -1 per use and +1 per milestone. The balance is the sum.
            try db.create(table: "recovery_token") { table in
                table.column("id", .text).primaryKey()
                table.column("user_id", .text).notNull().indexed()
                table.column("delta", .integer).notNull()
                table.column("reason", .text).notNull()
                table.column("created_at", .datetime).notNull()
            }
        }

        // Blocks move to the kit's one copy (`kit_block`, the same in every service that keeps one).
        BlockMirror.registerMigration(
            &migrator, movingRowsFrom: (table: "block", migration: "streak.v3.blocks-to-kit-mirror"))

        migrator.registerMigration("streak.v4.deadlines-and-shared-snaps") { db in
            // Who is in a streak: the zone their days close in, the name notifications use.
            try db.create(table: "member") { table in
                table.column("user_id", .text).primaryKey()
                table.column("display_name", .text)
                table.column("time_zone", .text).notNull()
                table.column("updated_at", .datetime).notNull()
            }
            // The last break, the one recovery, the last at-risk warning.
            try db.alter(table: "streak") { table in
                table.add(column: "broken_day", .text)
                table.add(column: "broken_count", .integer).notNull().defaults(to: 0)
                table.add(column: "missed_by", .text)
                table.add(column: "recovery_used", .boolean).notNull().defaults(to: false)
                table.add(column: "warned_day", .text)
            }
            // A snap is no longer one per user per day but one per user per streak per day
            // (`streak_snap`), with a caption and the prompt it answers. SQLite cannot drop a
            // unique key: the table is rebuilt.
            try db.create(table: "snap_v4") { table in
                table.column("id", .text).primaryKey()
                table.column("user_id", .text).notNull()
                table.column("media_id", .text).notNull()
                table.column("local_date", .text).notNull()
                table.column("time_zone", .text).notNull()
                table.column("caption", .text)
                table.column("prompt", .text)
                table.column("created_at", .datetime).notNull()
            }
            try db.execute(
                sql: """
                    INSERT INTO snap_v4 (id, user_id, media_id, local_date, time_zone, created_at)
                    SELECT id, user_id, media_id, local_date, time_zone, created_at FROM snap
                    """)
            try db.drop(table: "snap")
            try db.rename(table: "snap_v4", to: "snap")
            try db.create(index: "snap_by_user_day", on: "snap", columns: ["user_id", "local_date"])
            try db.create(index: "snap_by_media", on: "snap", columns: ["media_id"])
            try db.create(table: "streak_snap") { table in
                table.column("streak_id", .text).notNull()
                table.column("user_id", .text).notNull()
                table.column("local_date", .text).notNull()
                table.column("snap_id", .text).notNull().indexed()
                // Counts once its media is ready (snaps sent before v4 required ready media).
                table.column("ready", .boolean).notNull().defaults(to: true)
                table.column("created_at", .datetime).notNull()
                table.primaryKey(["streak_id", "user_id", "local_date"])
            }
            // Earlier snaps counted for every streak of their sender.
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO streak_snap (streak_id, user_id, local_date, snap_id, created_at)
                    SELECT streak.id, snap.user_id, snap.local_date, snap.id, snap.created_at
                    FROM snap JOIN streak ON snap.user_id IN (streak.user_a, streak.user_b)
                    """)
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO member (user_id, time_zone, updated_at)
                    SELECT user_id, time_zone, max(created_at) FROM snap GROUP BY user_id
                    """)
        }

        migrator.registerMigration("streak.v5.nudges-ledger-and-breaks") { db in
            // Which streak earned or used a token (the transaction history names it).
            try db.alter(table: "recovery_token") { table in table.add(column: "streak_id", .text) }
            // Every break, for the calendar (the streak row keeps only the last).
            try db.create(table: "streak_break") { table in
                table.column("streak_id", .text).notNull()
                table.column("local_date", .text).notNull()
                table.column("count", .integer).notNull()
                table.column("recovered", .boolean).notNull().defaults(to: false)
                table.primaryKey(["streak_id", "local_date"])
            }
            try db.execute(
                sql: """
                    INSERT INTO streak_break (streak_id, local_date, count, recovered)
                    SELECT id, broken_day, broken_count, recovery_used AND status = 'active'
                    FROM streak WHERE broken_day IS NOT NULL
                    """)
            // One nudge per sender, friend and the sender's local day.
            try db.create(table: "nudge") { table in
                table.column("from_user_id", .text).notNull()
                table.column("to_user_id", .text).notNull().indexed()
                table.column("local_date", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.primaryKey(["from_user_id", "to_user_id", "local_date"])
            }
        }

        migrator.registerMigration("streak.v6.windows-prompts-milestones") { db in
            // The earliest hour a member's daily window may open (the seed's default, 10).
            try db.alter(table: "member") { table in
                table.add(column: "earliest_hour", .integer).notNull().defaults(to: 10)
            }
            // Each user's window per local day, drawn once; its two notifications once each.
            try db.create(table: "snap_window") { table in
                table.column("user_id", .text).notNull()
                table.column("local_date", .text).notNull()
                table.column("time_zone", .text).notNull()
                table.column("opens_at", .datetime).notNull()
                table.column("closes_at", .datetime).notNull()
                table.column("opened_sent", .boolean).notNull().defaults(to: false)
                table.column("closing_sent", .boolean).notNull().defaults(to: false)
                table.primaryKey(["user_id", "local_date"])
            }
            // A Pro user's own prompt for a day.
            try db.create(table: "custom_prompt") { table in
                table.column("user_id", .text).notNull()
                table.column("local_date", .text).notNull()
                table.column("text", .text).notNull()
                table.column("emoji", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.primaryKey(["user_id", "local_date"])
            }
            // Milestones reached, for the milestone data route and the notifications.
            try db.create(table: "streak_milestone") { table in
                table.column("streak_id", .text).notNull()
                table.column("local_date", .text).notNull()
                table.column("count", .integer).notNull()
                table.column("reached_at", .datetime).notNull()
                table.primaryKey(["streak_id", "local_date"])
            }
        }

        migrator.registerMigration("streak.v7.share-cards") { db in
            // The cards users made of their streaks, and where they shared them (analytics).
            try db.create(table: "share_card") { table in
                table.primaryKey("id", .text)
                table.column("user_id", .text).notNull().indexed()
                table.column("streak_id", .text).notNull().indexed()
                table.column("media_id", .text).notNull()
                table.column("style", .text).notNull()
                table.column("count", .integer).notNull()
                table.column("platform", .text)
                table.column("shared_at", .datetime)
                table.column("created_at", .datetime).notNull()
            }
        }

        migrator.registerMigration("streak.v8.jobs-for-earlier-rows") { db in
            // Streaks and users from before their jobs existed (v4 deadlines, v6 windows) got a
            // job only at their next snap or settings change: a pair that stopped snapping
            // never heard it broke. Each gets one due now; its run settles it and schedules
            // the next (or cancels it when there is nothing to watch).
            let now = "strftime('%Y-%m-%d %H:%M:%f', 'now')"
            try db.execute(
                sql: """
                    INSERT INTO kit_job (kind, key, payload, due_at, created_at)
                    SELECT '\(StreakDeadline.kind)', id, CAST(json_object('streakId', id) AS BLOB), \(now), \(now)
                    FROM streak WHERE status = 'active' AND NOT EXISTS (
                        SELECT 1 FROM kit_job WHERE kind = '\(StreakDeadline.kind)' AND key = streak.id)
                    """)
            try db.execute(
                sql: """
                    INSERT INTO kit_job (kind, key, payload, due_at, created_at)
                    SELECT '\(SnapWindowJob.kind)', user_id, CAST(json_object('userId', user_id) AS BLOB), \(now), \(now)
                    FROM member WHERE EXISTS (SELECT 1 FROM streak WHERE member.user_id IN (user_a, user_b))
                      AND NOT EXISTS (SELECT 1 FROM kit_job WHERE kind = '\(SnapWindowJob.kind)' AND key = member.user_id)
                    """)
        }

        migrator.registerMigration("streak.v9.request-sender-plan") { db in
            // The sender's plan when they asked: accepting holds a free sender to the free
            // plan's limit too. Requests from before are not held to it (their plan is unknown).
            try db.alter(table: "friend_request") { table in
                table.add(column: "from_premium", .boolean).notNull().defaults(to: true)
            }
        }

        // Moderation hides a snap from the partners it was sent to (it still counts for the
        // streak), until a moderator restores it.
        migrator.registerMigration("streak.v10.moderated-snaps") { db in
            try db.alter(table: "snap") { $0.add(column: "hidden_at", .datetime) }
        }

        // The copies of what lists show of people and media (views).
        ProfileMirror.registerMigration(&migrator)
        MediaMirror.registerMigration(&migrator)
    }
}
