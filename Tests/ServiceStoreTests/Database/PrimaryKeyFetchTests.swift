import Foundation
import GRDB
import Testing

@testable import ServiceStore

@Suite struct PrimaryKeyFetchTests {
    struct Account: ServiceRecord, Equatable {
        static let databaseTableName = "account"
        var userId: String
        var displayName: String
    }

    struct Pair: ServiceRecord {
        static let databaseTableName = "pair"
        var a: String
        var b: String
    }

    static func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.create(table: "account") { table in
                table.column("user_id", .text).primaryKey()
                table.column("display_name", .text).notNull()
            }
            try db.create(table: "pair") { table in
                table.column("a", .text).notNull()
                table.column("b", .text).notNull()
                table.primaryKey(["a", "b"])
            }
            try Account(userId: "u1", displayName: "Ann").insert(db)
            try Account(userId: "u2", displayName: "Bob").insert(db)
        }
        return queue
    }

    /// The kept statement finds what GRDB's `fetchOne(_:key:)` and `exists(_:key:)` find, for a
    /// key there and one that is not, and again on the same connection (the statement reused).
    @Test func aRowIsFoundByItsKeyAsGRDBFindsIt() throws {
        try Self.database().read { (db: Database) throws in
            for key in ["u1", "u2", "u3", "u1"] {
                let (kept, built) = (try Account.fetchOne(db, primaryKey: key), try Account.fetchOne(db, key: key))
                let (keptExists, builtExists) = (
                    try Account.exists(db, primaryKey: key), try Account.exists(db, key: key)
                )
                #expect(kept == built)
                #expect(keptExists == builtExists)
            }
            let bob = try Account.fetchOne(db, primaryKey: "u2")
            let nobody = try Account.exists(db, primaryKey: "u3")
            #expect(bob?.displayName == "Bob")
            #expect(!nobody)
        }
    }

    /// A key of two columns is not one value: refused, not read as its first column.
    @Test func aKeyOfTwoColumnsIsRefused() throws {
        try Self.database().read { (db: Database) throws in
            #expect(throws: DatabaseError.self) { try Pair.fetchOne(db, primaryKey: "x") }
            #expect(throws: DatabaseError.self) { try Pair.exists(db, primaryKey: "x") }
        }
    }
}
