import Contracts
import Testing

@testable import ServiceHTTP

@Suite struct MediaURLSignerTests {
    static func keys(_ kid: String, byte: UInt8) -> MediaURLKeys {
        MediaURLKeys(
            current: kid, keys: [MediaURLKey(kid: kid, secret: Base64URL.encode([UInt8](repeating: byte, count: 32)))])
    }

    /// A URL asked for again is the one signed first; another expiry is signed anew, and every
    /// one of them checks out.
    @Test func aKeptURLIsTheSignedOneAndAnotherExpirySignsAgain() throws {
        let signer = try MediaURLSigner(Self.keys("k1", byte: 1))
        let fresh = try MediaURLSigner(Self.keys("k1", byte: 1))
        let first = signer.url("m1", .display, expires: 1_900_000_000)
        #expect(signer.url("m1", .display, expires: 1_900_000_000) == first)
        #expect(first == fresh.url("m1", .display, expires: 1_900_000_000))
        let later = signer.url("m1", .display, expires: 1_900_003_600)
        #expect(later != first && later == fresh.url("m1", .display, expires: 1_900_003_600))
        #expect(signer.url("m1", .thumbnail, expires: 1_900_003_600) != later)
        let signature = try #require(later.split(separator: "sig=").last.map(String.init))
        #expect(signer.isValid("m1", .display, expires: 1_900_003_600, kid: "k1", signature: signature))
        #expect(!signer.isValid("m1", .display, expires: 1_900_000_000, kid: "k1", signature: signature))
    }

    /// The kept URLs never outgrow their capacity.
    @Test func keptURLsStayWithinTheirCapacity() throws {
        let signer = try MediaURLSigner(Self.keys("k1", byte: 1), keeping: 100)
        for index in 0..<1000 { _ = signer.url("m\(index)", .thumbnail, expires: 1_900_000_000) }
        #expect(signer.signed.count <= 100)
        #expect(signer.url("m999", .thumbnail, expires: 1_900_000_000).contains("/m999/thumbnail?"))
    }

    /// The ring keeps its signer (and the URLs it signed) while media hands it the same keys,
    /// and signs with the new key once it changes.
    @Test func theRingKeepsItsSignerUntilTheKeysChange() throws {
        let ring = try MediaURLKeyRing.fixed(Self.keys("k1", byte: 1))
        _ = ring.current?.url("m1", .display, expires: 1_900_000_000)
        try ring.use(Self.keys("k1", byte: 1))
        #expect(ring.current?.signed.count == 1)
        try ring.use(Self.keys("k2", byte: 2))
        #expect(ring.current?.signed.count == 0)
        #expect(ring.current?.url("m1", .display, expires: 1_900_000_000).contains("kid=k2") == true)
    }
}
