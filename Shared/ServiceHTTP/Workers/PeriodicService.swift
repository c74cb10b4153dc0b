import ServiceLifecycle

/// A job that runs again and again: every `interval`, and as soon as its ``Doorbell`` rings.
///
/// Runs never overlap: rings during a run coalesce into one more run after it. Graceful
/// shutdown cancels the run under way and ends the loop without an error, so a normal stop
/// neither fails the service group nor logs anything alarming (jobs log failures with
/// ``Logging/Logger/failure(_:error:metadata:)``, which treats a cancelled task as a stop).
/// Every worker of every service is one of these, so the loop exists once.
public struct PeriodicService: Service {
    let interval: Duration
    let runsAtStart: Bool
    let doorbell: Doorbell
    let work: @Sendable () async -> Void

    /// `work` runs at start when `runsAtStart`, then every `interval` and whenever `doorbell`
    /// rings.
    public init(
        interval: Duration, runsAtStart: Bool = true, doorbell: Doorbell = Doorbell(),
        work: @escaping @Sendable () async -> Void
    ) {
        self.interval = interval
        self.runsAtStart = runsAtStart
        self.doorbell = doorbell
        self.work = work
    }

    public func run() async {
        let (interval, doorbell, work) = (self.interval, self.doorbell, self.work)
        if runsAtStart { doorbell.ring() }
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    while (try? await Task.sleep(for: interval)) != nil { doorbell.ring() }
                }
                // The stream ends when the task is cancelled (graceful shutdown).
                for await _ in doorbell.rings { await work() }
                group.cancelAll()
            }
        }
    }
}
