import Foundation

/// What `pinhole replicate` last measured of each database's replica, in
/// `<data>/run/replication.json`: each service exports its own database's figure as
/// `pinhole_replication_lag_seconds`, which the replication alert watches.
public struct ReplicationReport: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        /// How long the oldest change not yet in the replica had waited (0: caught up).
        public var lagSeconds: Double
        /// When the replica was last read for this database.
        public var measuredAt: Date
        /// The newest transaction seen in the replica (Litestream's transaction id).
        public var replicated: UInt64?

        public init(lagSeconds: Double, measuredAt: Date, replicated: UInt64? = nil) {
            self.lagSeconds = lagSeconds
            self.measuredAt = measuredAt
            self.replicated = replicated
        }
    }

    public var databases: [String: Entry]

    public init(databases: [String: Entry]) {
        self.databases = databases
    }

    /// A measurement older than this means the measuring stopped (or the replica cannot be
    /// read): its age counts as lag from then on.
    public static let staleAfter: TimeInterval = 45

    public static func file(in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("run/replication.json")
    }

    /// The lag of `database` as of `now`: the measured one, or, once measurements stop, the
    /// measured one plus the time since.
    public func lag(of database: String, now: Date) -> Double? {
        guard let entry = databases[database] else { return nil }
        let age = now.timeIntervalSince(entry.measuredAt)
        return age > Self.staleAfter ? entry.lagSeconds + age : entry.lagSeconds
    }

    /// The report in `dataDirectory`, when replication runs there.
    public static func read(in dataDirectory: URL) -> ReplicationReport? {
        guard let data = try? Data(contentsOf: file(in: dataDirectory)) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(ReplicationReport.self, from: data)
    }

    public func write(in dataDirectory: URL) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        try FileSystem.writeOwnerOnly(try encoder.encode(self), to: Self.file(in: dataDirectory))
    }
}
