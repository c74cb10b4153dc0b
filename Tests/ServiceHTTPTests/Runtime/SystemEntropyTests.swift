import Foundation
import ServiceHTTP
import Testing

@Suite struct SystemEntropyTests {
    @Test(arguments: [0, 1, 7, 8, 12, 24, 33])
    func givesAsManyBytesAsAsked(_ count: Int) {
        #expect(SystemEntropy().bytes(count).count == count)
    }

    /// 32 bytes twice alike, or all zero, would mean the buffer was not filled from the system.
    @Test func drawsAreRandom() {
        let entropy = SystemEntropy()
        let first = entropy.bytes(32)
        let second = entropy.bytes(32)
        #expect(first != second)
        #expect(first.contains { $0 != 0 })
    }

    /// A new object's id is a lowercase version 7 UUID whose text sorts by the millisecond it
    /// was made in, so an index of ids grows at its end; two made in the same millisecond differ.
    @Test func idsSortByTheirTime() throws {
        let entropy = SystemEntropy()
        let start = Date(timeIntervalSince1970: 1_796_000_000.123)
        let ids = (0..<50).map { entropy.id(at: start.addingTimeInterval(Double($0) * 0.001)) }
        #expect(ids.sorted() == ids)
        #expect(entropy.id(at: start) != entropy.id(at: start))
        for id in ids {
            #expect(ObjectID.canonical(id) == id)
            let characters = Array(id)
            #expect(characters[14] == "7")
            #expect("89ab".contains(characters[19]))
        }
        let millisecondsText = String(ids[0].replacingOccurrences(of: "-", with: "").prefix(12))
        #expect(UInt64(millisecondsText, radix: 16) == 1_796_000_000_123)
    }
}
