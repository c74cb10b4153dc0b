import GRDB

extension Database {
    /// Every row of every application table (not SQLite's, GRDB's or the kit's) whose text
    /// mentions `id`, as "table: row": what a deleted account must not leave behind.
    public func rows(mentioning id: String, except excluded: Set<String> = []) throws -> [String] {
        let tables = try String.fetchAll(
            self,
            sql: """
                SELECT name FROM sqlite_master WHERE type = 'table'
                AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kit_%' AND name NOT LIKE 'grdb_%'
                """)
        var found: [String] = []
        for table in tables where !excluded.contains(table) {
            for row in try Row.fetchAll(self, sql: "SELECT * FROM \"\(table)\"") {
                let text = row.databaseValues.map(\.description).joined(separator: " ")
                if text.contains(id) { found.append("\(table): \(text)") }
            }
        }
        return found
    }
}
