import Synchronization

/// Wakes a ``PeriodicService`` before its next interval: the outbox rings when a transaction
/// with events commits (the store layer's `ring(afterCommitOf:)`), media when a video starts
/// processing. Rings coalesce: many rings while the job runs wake it once more.
public final class Doorbell: Sendable {
    let rings: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    /// Connections whose open transaction already rings this bell when it commits (the store
    /// layer's `ring(afterCommitOf:)`).
    package let armed = Mutex<Set<ObjectIdentifier>>([])

    public init() {
        (rings, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks for a run as soon as the one under way (if any) ends.
    public func ring() {
        continuation.yield()
    }
}
