import Contracts
import Foundation
import GRDB
import ServiceStore

/// Watches every transaction of alerts' database for notifications made or marked read, and
/// after it commits tells ``LiveStreams`` (only users with a stream open cost a read). Every
/// writer (the inbox, the controllers, erasure) is covered without each having to remember.
final class NotificationTap: TransactionObserver, @unchecked Sendable {
    // `@unchecked`: GRDB calls an observer only from the writer's serial queue, so `made` and
    // `read` are never touched concurrently.
    private let streams: LiveStreams
    /// The actor of each notification and each message's media, as the list shows them.
    private let views: Views
    private var made: [Int64] = []
    private var read: [Int64] = []

    init(streams: LiveStreams, views: Views) {
        self.streams = streams
        self.views = views
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        switch eventKind {
        case .insert(let table): table == NotificationRecord.databaseTableName
        case .update(let table, let columns):
            table == NotificationRecord.databaseTableName && columns.contains(NotificationRecord.Columns.readAt.name)
        case .delete: false
        }
    }

    func databaseDidChange(with event: DatabaseEvent) {
        guard !streams.isEmpty else { return }
        switch event.kind {
        case .insert: made.append(event.rowID)
        case .update: read.append(event.rowID)
        case .delete: break
        }
    }

    func databaseDidCommit(_ db: Database) {
        defer { (made, read) = ([], []) }
        guard !made.isEmpty || !read.isEmpty else { return }
        do {
            try publish(in: db, committedAt: Date())
        } catch {
            // A failed read costs the live stream one change; the centre has it all.
        }
    }

    func databaseDidRollback(_ db: Database) {
        (made, read) = ([], [])
    }

    /// Publishes the transaction's changes, stamped with `committedAt` (the real instant, not
    /// the service's clock: it says how long delivery took).
    private func publish(in db: Database, committedAt: Date) throws {
        let new = try Self.fetch(made, in: db)
        let marked = try Self.fetch(read, in: db).filter { $0.readAt != nil }
        let users = streams.listening(Set(new.map(\.userId) + marked.map(\.userId)))
        let heard = new.filter { users.contains($0.userId) }
        let shown = Dictionary(
            zip(heard.map(\.id), try AlertsStore.shown(heard, views: views, in: db)).map { ($0, $1) }
        ) { first, _ in first }
        let directMessages = try AlertsStore.directMessages(of: heard, views: views, in: db)
        for user in users {
            let unread = try NotificationRecord.unreadCount(of: user, in: db)
            var messages = new.filter { $0.userId == user }.map {
                NotificationStreamMessage(
                    type: .notification, notification: shown[$0.id] ?? $0.contract, message: directMessages[$0.id],
                    unreadCount: unread, committedAt: committedAt)
            }
            let ids = marked.filter { $0.userId == user }.map(\.id)
            if !ids.isEmpty {
                messages.append(
                    NotificationStreamMessage(type: .read, ids: ids, unreadCount: unread, committedAt: committedAt))
            }
            streams.publish(messages, to: user)
        }
    }

    /// The rows of `rowIDs`, 500 per statement (a read-all can mark thousands). The statements
    /// for up to 64 rows (a group commit's events) are kept: a commit runs one after each.
    private static func fetch(_ rowIDs: [Int64], in db: Database) throws -> [NotificationRecord] {
        var rows: [NotificationRecord] = []
        for start in stride(from: 0, to: rowIDs.count, by: 500) {
            let chunk = Array(rowIDs[start..<min(start + 500, rowIDs.count)])
            let sql = "SELECT * FROM notification WHERE rowid IN (\(databaseQuestionMarks(count: chunk.count)))"
            let statement = try chunk.count <= 64 ? db.cachedStatement(sql: sql) : db.makeStatement(sql: sql)
            rows += try NotificationRecord.fetchAll(statement, arguments: StatementArguments(chunk))
        }
        return rows
    }
}
