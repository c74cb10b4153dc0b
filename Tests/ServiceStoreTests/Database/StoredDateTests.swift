import Foundation
import GRDB
import PropertyBased
import Testing

@testable import ServiceHTTP
@testable import ServiceStore

@Suite struct StoredDateTests {
    /// The text GRDB's own `DateFormatter` writes for `date`.
    static func grdbText(_ date: Date) -> String? { String.fromDatabaseValue(date.databaseValue) }

    static func storedText(_ date: Date) -> String? { String.fromDatabaseValue(StoredDate(date).databaseValue) }

    @Test func aStoredDateIsWrittenAsGRDBWritesADate() async {
        // Any instant of the years 1…9999 to the microsecond.
        await propertyCheck(count: 3000, input: Gen.int(in: -62_135_596_800_000_000...253_402_300_799_999_999)) {
            microseconds in
            let date = Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
            #expect(Self.storedText(date) == Self.grdbText(date), "\(microseconds) µs")
        }
        // Around today, where stored dates are, with fractions close to a millisecond's edge.
        await propertyCheck(count: 3000, input: Gen.int(in: 1_700_000_000_000...1_900_000_000_000), Gen.int(in: 0...9))
        { milliseconds, tenth in
            for nudge in [-1e-7, 0, 1e-7] {
                let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000 + Double(tenth) / 10_000 + nudge)
                #expect(Self.storedText(date) == Self.grdbText(date), "\(milliseconds) ms + \(tenth)/10 + \(nudge)")
            }
        }
        for date in [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -0.0005), Date.distantPast] {
            #expect(Self.storedText(date) == Self.grdbText(date))
        }
        #expect(Self.storedText(Date(timeIntervalSince1970: 951_782_400.25)) == "2000-02-29 00:00:00.250")
    }
}
