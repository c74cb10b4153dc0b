import Foundation
import Synchronization

/// Where every piece of Pinhole gets the current time, so that tests can move it.
public protocol WallClock: Sendable {
    /// The current instant.
    func now() -> Date
}

/// The real clock.
public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that only moves when told to; for tests that run a month in a second.
public final class ManualClock: WallClock {
    private let current: Mutex<Date>

    /// Starts the clock at `start`.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        self.current = Mutex(start)
    }

    public func now() -> Date { current.withLock { $0 } }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// Sets the clock to an instant.
    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}
