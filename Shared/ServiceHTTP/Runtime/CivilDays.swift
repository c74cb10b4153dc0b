/// Days of the proleptic Gregorian calendar counted from 1970-01-01, by the era arithmetic of
/// Howard Hinnant's `days_from_civil` / `civil_from_days` (400-year eras of 146,097 days, years
/// starting in March): exact for any year, no `Calendar` and no time zone.
public enum CivilDays {
    /// Days since 1970-01-01 (negative before) of a year, month (1…12) and day.
    public static func ordinal(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The year, month and day `ordinal` days after 1970-01-01.
    public static func date(ordinal: Int) -> (year: Int, month: Int, day: Int) {
        let z = ordinal + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `milliseconds` since 1970 as `yyyy-MM-dd` `separator` `HH:mm:ss.SSS` then `zone`, in UTC,
    /// with integer arithmetic (Foundation's formatters cost as much as a page's SQL); nil
    /// outside the years 1600…9999 (Foundation's calendar is Julian before October 1582): those
    /// are left to Foundation. Stored dates (``StoredDate``) and JSON timestamps are written here.
    public static func text(milliseconds: Int, separator: Character, zone: String = "") -> String? {
        let quotient = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let inDay = milliseconds - quotient * 86_400_000
        let (year, month, day) = date(ordinal: quotient)
        guard (1600...9999).contains(year) else { return nil }
        var bytes = [UInt8](repeating: 0, count: 23)
        func put(_ value: Int, at offset: Int, digits: Int) {
            var value = value
            for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                bytes[index] = UInt8(truncatingIfNeeded: 48 + value % 10)
                value /= 10
            }
        }
        put(year, at: 0, digits: 4)
        put(month, at: 5, digits: 2)
        put(day, at: 8, digits: 2)
        put(inDay / 3_600_000, at: 11, digits: 2)
        put(inDay / 60_000 % 60, at: 14, digits: 2)
        put(inDay / 1000 % 60, at: 17, digits: 2)
        put(inDay % 1000, at: 20, digits: 3)
        for (index, mark) in [(4, "-"), (7, "-"), (10, separator), (13, ":"), (16, ":"), (19, ".")] {
            bytes[index] = mark.utf8.first!
        }
        return String(decoding: bytes, as: UTF8.self) + zone
    }
}
