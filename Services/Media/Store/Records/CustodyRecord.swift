import Contracts
import Crypto
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `custody_entry`.
struct CustodyRecord: ServiceRecord {
    static let databaseTableName = "custody_entry"

    var evidenceId: String
    var sequence: Int
    var action: String
    var actorId: String
    var at: Date
    var previousHash: String
    var hash: String

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case sequence
        case evidenceId = "evidence_id"
    }

    static let genesis = String(repeating: "0", count: 64)

    /// The hash an entry must carry: over the previous hash and everything the entry says.
    static func hash(
        previous: String, evidence: String, sequence: Int, action: String, actor: String, at: Date
    )
        -> String
    {
        let text = [previous, evidence, String(sequence), action, actor, String(JSONCoding.milliseconds(at))]
            .joined(separator: "\n")
        return Hex.encode(SHA256.hash(data: Data(text.utf8)))
    }

    var entry: CustodyEntry {
        CustodyEntry(
            sequence: sequence, action: action, actorId: actorId, at: at, previousHash: previousHash, hash: hash)
    }
}
