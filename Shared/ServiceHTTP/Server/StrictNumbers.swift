/// Numbers read from text a client sent, as strictly as JSON and HTTP define them, rather than
/// everything Swift's initialisers accept: `Double("0x30")` is 48, `Double("nan")` is NaN and
/// `Int("+10")` is 10, none of which a client means by a number.
public enum StrictNumbers {
    /// A decimal number as JSON writes one: an optional `-`, digits, then an optional fraction
    /// and exponent; finite. Nil for anything else (hex, `inf`, a leading `+` or `.`, spaces).
    public static func decimal(_ text: some StringProtocol) -> Double? {
        let bytes = Array(text.utf8)
        var index = 0
        func skipDigits() -> Bool {
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index > start
        }
        func skip(_ options: UInt8...) -> Bool {
            guard index < bytes.count, options.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        _ = skip(UInt8(ascii: "-"))
        guard skipDigits() else { return nil }
        if skip(UInt8(ascii: ".")) { guard skipDigits() else { return nil } }
        if skip(UInt8(ascii: "e"), UInt8(ascii: "E")) {
            _ = skip(UInt8(ascii: "+"), UInt8(ascii: "-"))
            guard skipDigits() else { return nil }
        }
        guard index == bytes.count, let value = Double(String(text)), value.isFinite else { return nil }
        return value
    }

    /// A count as HTTP writes one (`Content-Length`, tus's `Upload-Length` and `Upload-Offset`):
    /// 1 to 18 ASCII digits, no sign, no spaces. Nil for anything else.
    public static func count(_ text: some StringProtocol) -> Int? {
        guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return Int(text)
    }
}
