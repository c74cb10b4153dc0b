// The kit's public API speaks in these modules' types (contracts, loggers), so every
// importer of ServiceHTTP sees them without importing them separately.
@_exported import Contracts
@_exported import Logging
