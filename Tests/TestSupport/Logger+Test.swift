import Foundation
import Logging

extension Logger {
    /// The logger of a test's own servers, fakes and clients: warnings and worse, so a test
    /// run's output is its report. `PINHOLE_TEST_LOG_LEVEL=debug` (or `info`, `trace`) shows
    /// more when a failure needs it. The stack tests' processes log at `info` into memory and
    /// print their lines only when a test fails.
    public static func test(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel =
            ProcessInfo.processInfo.environment["PINHOLE_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
            ?? .warning
        return logger
    }
}
