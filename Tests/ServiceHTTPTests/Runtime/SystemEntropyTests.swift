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
}
