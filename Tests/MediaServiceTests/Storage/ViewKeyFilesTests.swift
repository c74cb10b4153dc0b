import Foundation
import ServiceHTTP
import TestSupport
import Testing

@testable import MediaService

/// Media's view-URL keys: made on first use, owner-only, replaced once the newest is older
/// than the rotation, the old one kept while URLs signed with it still live.
@Suite struct ViewKeyFilesTests {
    @Test func keysAreOwnerOnlyRotatedAndRetiredAfterTheOverlap() throws {
        let directory = try TestDataDirectory.make()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let files = ViewKeyFiles(
            directory: directory.url.appendingPathComponent("view-keys"), rotation: 24 * 3600, clock: clock,
            entropy: SystemEntropy())

        let first = try files.current()
        #expect(first.keys.map(\.kid) == [first.current])
        let attributes = try FileManager.default.attributesOfItem(
            atPath: files.directory.appendingPathComponent(first.current).path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: files.directory.path)
        #expect((folder[.posixPermissions] as? Int) == 0o700)
        #expect(try files.current() == first, "asked again within the rotation, the same key")

        // A day on: a new key signs; the old one still checks the URLs it signed.
        clock.advance(by: 24 * 3600)
        let second = try files.current()
        #expect(second.current != first.current)
        #expect(Set(second.keys.map(\.kid)) == [first.current, second.current])
        let url = try MediaURLSigner(first).url("m", .display, expires: 1_900_000_000)
        let query = URLComponents(string: url)!.queryItems!.reduce(into: [String: String]()) { $0[$1.name] = $1.value }
        #expect(
            try MediaURLSigner(second).isValid(
                "m", .display, expires: 1_900_000_000, kid: query["kid"]!, signature: query["sig"]!))

        // Three hours after its successor began signing, the old key goes, file and all.
        clock.advance(by: ViewKeyFiles.overlap)
        let third = try files.current()
        #expect(third.keys.map(\.kid) == [second.current])
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.directory.path) == [second.current])
        #expect(
            try !MediaURLSigner(third).isValid(
                "m", .display, expires: 1_900_000_000, kid: query["kid"]!, signature: query["sig"]!))
    }
}
