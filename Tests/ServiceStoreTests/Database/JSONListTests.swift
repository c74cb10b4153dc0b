import GRDB
import Testing

@testable import ServiceStore

@Suite struct JSONListTests {
    /// What `json_each` reads back is the list given, whether written directly or escaped.
    @Test(arguments: [
        [],
        ["5f0c7a8e-1d2b-4c3d-9e4f-0a1b2c3d4e5f", "u0000000-0000-4000-8000-000000000001"],
        ["plain", "with \"quotes\"", "back\\slash", "tab\tand\nnewline", "déjà vu", "🦔"],
    ])
    func readsBackAsGiven(_ values: [String]) throws {
        let database = try DatabaseQueue()
        let read = try database.read { db in
            try String.fetchAll(db, sql: "SELECT value FROM json_each(?)", arguments: [JSONList.argument(values)])
        }
        #expect(read == values)
    }

    @Test func idsAreWrittenWithoutTheEncoder() {
        #expect(JSONList.argument(["a-1", "b-2"]) == #"["a-1","b-2"]"#)
        #expect(JSONList.argument(["a/1"]) == #"["a/1"]"#)
    }
}
