import Foundation
import ServiceHTTP
import Testing

/// `replication.url` and what it reaches: a directory, or a bucket with media's S3 settings.
@Suite struct ReplicationSettingsTests {
    let s3 = [
        "media.s3.endpoint": "http://127.0.0.1:9000", "media.s3.accessKeyId": "key",
        "media.s3.secretAccessKey": "secret", "media.s3.addressing": "path",
    ]

    @Test func offUnlessAURLIsSet() throws {
        #expect(try ReplicationSettings.read(.fixed([:])) == nil)
        #expect(try ReplicationSettings.read(.fixed(["replication.url": ""])) == nil)
    }

    @Test func aDirectoryHoldsEachDatabaseUnderItsName() throws {
        let settings = try #require(try ReplicationSettings.read(.fixed(["replication.url": "file:///mnt/replica/"])))
        #expect(settings.target == .directory(URL(fileURLWithPath: "/mnt/replica", isDirectory: true)))
        #expect(settings.location(of: "auth") == "/mnt/replica/auth")
        #expect(settings.interval == .milliseconds(250) && settings.retentionHours == 72 && settings.s3 == nil)
        #expect(settings.priority == .yielding)
        for (name, priority) in [("idle", ChildProcess.Priority.idle), ("normal", .normal), ("yield", .yielding)] {
            let chosen = try ReplicationSettings(url: "file:///r", reader: .fixed(["replication.priority": name]))
            #expect(chosen.priority == priority)
        }
    }

    @Test func aBucketIsReachedWithMediasS3Settings() throws {
        let settings = try ReplicationSettings(
            url: "s3://backups/pinhole/prod/", reader: .fixed(s3.merging(["replication.intervalMs": "500"]) { $1 }))
        #expect(settings.target == .s3(bucket: "backups", prefix: "pinhole/prod"))
        #expect(settings.location(of: "blobs") == "pinhole/prod/blobs")
        #expect(settings.s3?.endpoint == "http://127.0.0.1:9000" && settings.s3?.pathStyle == true)
        #expect(settings.interval == .milliseconds(500))
        let bare = try ReplicationSettings(url: "s3://backups", reader: .fixed(s3))
        #expect(bare.location(of: "feed") == "feed")
    }

    @Test func aURLItCannotUseStopsTheBootWithWhatIsWrong() {
        for url in [
            "https://example.com/x", "file://host/path", "file:///", "s3:///prefix", "s3://Bad_Bucket/x", "nope",
        ] {
            #expect(throws: ConfigurationError.self, "\(url)") {
                try ReplicationSettings(url: url, reader: .fixed(s3))
            }
        }
        #expect(throws: ConfigurationError.self) { try ReplicationSettings(url: "s3://backups/x", reader: .fixed([:])) }
        #expect(throws: ConfigurationError.self) {
            try ReplicationSettings(url: "file:///r", reader: .fixed(["replication.intervalMs": "10"]))
        }
        #expect(throws: ConfigurationError.self) {
            try ReplicationSettings(url: "file:///r", reader: .fixed(["replication.priority": "high"]))
        }
    }

    /// What `pinhole replicate` measured, as a service exports it: once the measuring stops,
    /// the time since counts as lag.
    @Test func aMeasurementThatStoppedCountsItsAgeAsLag() throws {
        let measured = Date(timeIntervalSince1970: 1_000_000)
        let report = ReplicationReport(databases: ["feed": .init(lagSeconds: 0.4, measuredAt: measured)])
        #expect(report.lag(of: "feed", now: measured.addingTimeInterval(20)) == 0.4)
        #expect(report.lag(of: "feed", now: measured.addingTimeInterval(100)) == 100.4)
        #expect(report.lag(of: "auth", now: measured) == nil)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("replication-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try report.write(in: directory)
        #expect(ReplicationReport.read(in: directory) == report)
        #expect(try FileSystem.permissions(of: ReplicationReport.file(in: directory)) == 0o600)
    }
}
