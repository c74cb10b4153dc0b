import Foundation

/// The JSON conventions of every Pinhole body: ISO 8601 dates, field names from `CodingKeys`.
public enum JSONCoding {
    /// A new encoder with Pinhole's conventions (encoders are not thread-safe to share).
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(timestamp(date))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// `date` as ISO 8601 UTC with milliseconds (`2026-11-22T10:00:00.123Z`), rounded to the
    /// nearest millisecond as the stores round: an answer given at creation shows the same time
    /// as every later read of the stored row. Integer arithmetic (``CivilDays``), because
    /// Foundation's own fractional-second formatting can be a millisecond off for binary
    /// fractions, and because every answer writes dozens of these.
    public static func timestamp(_ date: Date) -> String {
        let milliseconds = milliseconds(date)
        return CivilDays.text(milliseconds: Int(milliseconds), separator: "T", zone: "Z")
            ?? formattedTimestamp(milliseconds)
    }

    /// `milliseconds` since 1970 formatted by Foundation (for the years ``CivilDays`` leaves to
    /// it, and the check of the rest).
    static func formattedTimestamp(_ milliseconds: Int64) -> String {
        var (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        if fraction < 0 { (seconds, fraction) = (seconds - 1, fraction + 1000) }
        var text = Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
        text.removeLast()  // "Z"
        let digits = String(fraction)
        return text + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Milliseconds since 1970, rounded to the nearest as the stores round.
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The date of `milliseconds` since 1970.
    public static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// A new decoder with Pinhole's conventions; accepts dates with or without fractions.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = try? Date(text, strategy: .iso8601WithFractionalSeconds) { return date }
            if let date = try? Date(text, strategy: .iso8601) { return date }
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected an ISO 8601 date")
        }
        return decoder
    }
}

extension ParseStrategy where Self == Date.ISO8601FormatStyle {
    static var iso8601WithFractionalSeconds: Date.ISO8601FormatStyle {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    }
}

extension FormatStyle where Self == Date.ISO8601FormatStyle {
    static var iso8601WithFractionalSeconds: Date.ISO8601FormatStyle {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    }
}
