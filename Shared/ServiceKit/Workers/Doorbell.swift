/// Wakes a ``PeriodicService`` before its next interval: the outbox rings when a transaction
/// with events commits, media when a video starts processing. Rings coalesce: many rings
/// while the job runs wake it once more.
public final class Doorbell: Sendable {
    let rings: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    public init() {
        (rings, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks for a run as soon as the one under way (if any) ends.
    public func ring() {
        continuation.yield()
    }
}
