import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Daily prompts: the operator's book (``PromptBook``) one per local day, or a Pro user's own
/// prompt for a day they set one.
extension StreakStore {
    /// The prompt `user` sees on `day`.
    func prompt(of user: String, on day: LocalDay, in db: Database) throws -> DailyPrompt {
        if let custom = try CustomPromptRecord.fetchOne(db, key: ["user_id": user, "local_date": day.description]) {
            return custom.contract
        }
        let prompt = settings.prompts.prompt(for: day)
        return DailyPrompt(
            date: day.description, text: prompt.text, category: prompt.category, emoji: prompt.emoji, custom: false)
    }

    /// Today's prompt for `user`: their day in `zone`, or in the zone streak knows for them.
    func todaysPrompt(of user: String, zone: TimeZone?, at now: Date) async throws -> DailyPrompt {
        try await database.tracedRead { db in
            let zone = try zone ?? MemberRecord.find(user, in: db).zone
            return try prompt(of: user, on: LocalDay(now, in: zone), in: db)
        }
    }

    /// `user`'s local day as of `now`, in the zone streak knows for them.
    func today(of user: String, at now: Date) async throws -> LocalDay {
        try await database.tracedRead { db in LocalDay(now, in: try MemberRecord.find(user, in: db).zone) }
    }

    /// Sets (or replaces) `user`'s own prompt for `day`.
    func setCustomPrompt(_ record: CustomPromptRecord) async throws -> DailyPrompt {
        try await database.tracedWrite { db in
            try record.upsert(db)
            return record.contract
        }
    }

    /// `user`'s own prompts from `day` on, soonest first.
    func customPrompts(of user: String, from day: LocalDay) async throws -> [DailyPrompt] {
        try await database.tracedRead { db in
            try CustomPromptRecord
                .filter(
                    CustomPromptRecord.Columns.userId == user && CustomPromptRecord.Columns.localDate >= day.description
                )
                .order(CustomPromptRecord.Columns.localDate)
                .fetchAll(db).map(\.contract)
        }
    }

    /// Removes `user`'s own prompt for `day`; whether there was one.
    func deleteCustomPrompt(of user: String, on day: LocalDay) async throws -> Bool {
        try await database.tracedWrite { db in
            try CustomPromptRecord.deleteOne(db, key: ["user_id": user, "local_date": day.description])
        }
    }
}

extension CustomPromptRecord {
    var contract: DailyPrompt {
        DailyPrompt(date: localDate, text: text, category: "custom", emoji: emoji, custom: true)
    }
}
