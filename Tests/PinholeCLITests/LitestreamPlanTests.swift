import Foundation
import ServiceHTTP
import Testing
import Yams

@testable import PinholeCLI

/// The Litestream configuration `pinhole replicate` generates, read back as YAML.
@Suite struct LitestreamPlanTests {
    @Test func everyDatabaseAndTheFilesGoToTheirOwnPlaceInTheBucket() throws {
        let replication = try ReplicationSettings(
            url: "s3://backups/pin hole",
            reader: .fixed([
                "media.s3.endpoint": "https://s3.eu-west-1.amazonaws.com", "media.s3.accessKeyId": "AKIA",
                "media.s3.secretAccessKey": "do-not-write-me", "media.s3.region": "eu-west-1",
            ]))
        let plan = LitestreamPlan(
            replication: replication, dataDirectory: URL(fileURLWithPath: "/srv/data \"x\""),
            metricsAddress: "127.0.0.1:9091")
        let text = plan.configuration
        #expect(!text.contains("do-not-write-me") && !text.contains("AKIA"), "credentials go by environment")
        let yaml = try #require(try Yams.load(yaml: text) as? [String: Any])
        #expect(yaml["addr"] as? String == "127.0.0.1:9091")
        let databases = try #require(yaml["dbs"] as? [[String: Any]])
        #expect(databases.count == 7)
        let paths = databases.compactMap { $0["path"] as? String }
        #expect(paths.first == "/srv/data \"x\"/auth/auth.sqlite")
        #expect(paths.last == "/srv/data \"x\"/replica/files.sqlite")
        let replica = try #require(databases.first?["replica"] as? [String: Any])
        #expect(replica["type"] as? String == "s3" && replica["bucket"] as? String == "backups")
        #expect(replica["path"] as? String == "pin hole/auth")
        #expect(replica["endpoint"] as? String == "https://s3.eu-west-1.amazonaws.com")
        #expect(replica["region"] as? String == "eu-west-1" && replica["force-path-style"] as? Bool == false)
        #expect(
            replica["sync-interval"] as? String == "250ms" && databases.first?["monitor-interval"] as? String == "250ms"
        )
        let environment = plan.environment(["AWS_CA_BUNDLE": "/etc/ssl/x.pem", "PATH": "/bin"])
        #expect(environment["LITESTREAM_SECRET_ACCESS_KEY"] == "do-not-write-me" && environment["AWS_CA_BUNDLE"] == nil)
    }

    @Test func aDirectoryReplicaNamesItsFolders() throws {
        let replication = try ReplicationSettings(url: "file:///mnt/replica", reader: .fixed([:]))
        let plan = LitestreamPlan(
            replication: replication, dataDirectory: URL(fileURLWithPath: "/d"), metricsAddress: nil)
        let yaml = try #require(try Yams.load(yaml: plan.configuration) as? [String: Any])
        #expect(yaml["addr"] == nil)
        let replicas = (yaml["dbs"] as? [[String: Any]] ?? []).compactMap { $0["replica"] as? [String: Any] }
        #expect(
            replicas.map { $0["path"] as? String }
                == ["auth", "media", "feed", "streak", "alerts", "moderation", "files"].map { "/mnt/replica/\($0)" })
        #expect(replicas.allSatisfy { $0["type"] as? String == "file" })
    }
}
