import Contracts
import GRDB

// The contracts' enums that services keep in columns, stored as their raw values: declared
// once here, for every service that stores them (its own rows and the kit's media copy).
extension MediaStatus: DatabaseValueConvertible {}
extension MediaKind: DatabaseValueConvertible {}
extension MediaVisibility: DatabaseValueConvertible {}
