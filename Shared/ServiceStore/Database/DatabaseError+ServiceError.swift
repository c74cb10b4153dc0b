import GRDB
import ServiceHTTP

/// A unique-constraint failure is a 409: two requests raced to make the same thing, or a
/// client asked for something that already exists. Every other SQLite error is internal.
extension DatabaseError: ServiceErrorConvertible {
    public var serviceError: ServiceError? {
        switch extendedResultCode {
        case .SQLITE_CONSTRAINT_UNIQUE, .SQLITE_CONSTRAINT_PRIMARYKEY:
            ServiceError(.conflict, "This clashes with something that already exists.")
        default:
            nil
        }
    }
}
