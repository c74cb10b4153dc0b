import Foundation
import Testing
import X509

@testable import ServiceHTTP

@Suite struct LocalAuthorityTests {
    @Test func createsOwnerOnlyFilesAndOneCertificatePerExecutable() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pki-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let issued = try LocalAuthority(dataDirectory: directory).prepare()
        #expect(Set(issued) == Set(ServiceName.allCases))

        let pki = directory.appendingPathComponent("pki")
        #expect(try FileSystem.permissions(of: pki) == 0o700)
        for file in try FileManager.default.contentsOfDirectory(atPath: pki.path) {
            #expect(try FileSystem.permissions(of: pki.appendingPathComponent(file)) == 0o600, "\(file)")
        }
        let authority = try Certificate(
            pemEncoded: String(contentsOf: pki.appendingPathComponent("ca.crt"), encoding: .utf8))
        let auth = try Certificate(
            pemEncoded: String(contentsOf: pki.appendingPathComponent("auth.crt"), encoding: .utf8))
        #expect(auth.subjectCommonName == "auth")
        #expect(auth.issuer == authority.subject)
        let names = try #require(try auth.extensions.subjectAlternativeNames)
        #expect(names.contains(.dnsName("auth")))
        #expect(names.contains(.dnsName("localhost")))
    }

    @Test func keepsTheAuthorityAndReissuesOnlyCertificatesCloseToExpiry() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pki-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock(Date())
        let authority = LocalAuthority(dataDirectory: directory, clock: clock)
        try authority.prepare()
        let caBefore = try Data(contentsOf: directory.appendingPathComponent("pki/ca.crt"))
        #expect(try authority.prepare().isEmpty)

        clock.advance(by: 340 * 86_400)
        #expect(Set(try authority.prepare()) == Set(ServiceName.allCases))
        #expect(try Data(contentsOf: directory.appendingPathComponent("pki/ca.crt")) == caBefore)
    }
}
