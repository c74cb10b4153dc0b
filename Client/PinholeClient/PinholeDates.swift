import Foundation
import OpenAPIRuntime

/// Pinhole's dates: ISO 8601 in UTC with milliseconds (`2026-11-22T10:00:00.123Z`), read with
/// or without the fraction (the generator's default reads only whole seconds).
struct PinholeDates: DateTranscoder {
    func encode(_ date: Date) throws -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    func decode(_ text: String) throws -> Date {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
            return date
        }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "\(text) is not an ISO 8601 date"))
    }
}
