import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

@testable import ServiceHTTP

@Suite struct PeriodicServiceTests {
    /// Counts runs and can hold a run open until it is cancelled.
    final class Job: Sendable {
        let runs = Atomic<Int>(0)
        let holding = Atomic<Bool>(false)
        let log = CapturedLog()

        func run() async {
            runs.add(1, ordering: .relaxed)
            guard holding.load(ordering: .relaxed) else { return }
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                log.logger.failure("the job could not finish", error: error)
            }
        }

        var count: Int { runs.load(ordering: .relaxed) }
    }

    /// Runs `service` in a service group until `body` returns, then shuts it down gracefully;
    /// returns whether the group ended without an error, and how long the stop took.
    func whileRunning(
        _ service: PeriodicService, _ body: () async throws -> Void
    ) async throws -> (clean: Bool, stop: Duration) {
        let group = ServiceGroup(services: [service], logger: Logger.test("test"))
        let task = Task { try await group.run() }
        try await body()
        let start = ContinuousClock.now
        await group.triggerGracefulShutdown()
        let clean = (try? await task.value) != nil
        return (clean, ContinuousClock.now - start)
    }

    @Test func runsAtStartAndAgainEachTimeItsDoorbellRings() async throws {
        let job = Job()
        let doorbell = Doorbell()
        let service = PeriodicService(interval: .seconds(3600), doorbell: doorbell) { await job.run() }
        let (clean, _) = try await whileRunning(service) {
            #expect(await eventually { job.count == 1 })
            doorbell.ring()
            #expect(await eventually { job.count == 2 })
            doorbell.ring()
            #expect(await eventually { job.count == 3 })
        }
        #expect(clean)
    }

    @Test func runsEveryIntervalAndWaitsForTheFirstWhenAsked() async throws {
        let job = Job()
        let service = PeriodicService(interval: .milliseconds(100), runsAtStart: false) { await job.run() }
        let (clean, _) = try await whileRunning(service) {
            try await Task.sleep(for: .milliseconds(30))
            #expect(job.count == 0, "ran before its first interval")
            #expect(await eventually { job.count >= 3 })
        }
        #expect(clean)
    }

    @Test func gracefulShutdownCancelsARunUnderWayAndLogsNoError() async throws {
        let job = Job()
        job.holding.store(true, ordering: .relaxed)
        let service = PeriodicService(interval: .seconds(3600)) { await job.run() }
        let (clean, stop) = try await whileRunning(service) {
            #expect(await eventually { job.count == 1 })
        }
        // The group ends without an error (a service that throws would fail the process's
        // exit status), promptly, and the cancelled run's failure is not logged as an error.
        #expect(clean)
        // A run that is not cancelled holds the stop for 60 s; a prompt one has taken 6.6 s
        // while every suite of a full run starts its servers on two cores.
        #expect(stop < .seconds(20))
        #expect(job.log.levels(of: "the job could not finish") == [.debug])
    }

    @Test func failuresThatAreNotAStopAreLoggedAsErrors() {
        let log = CapturedLog()
        log.logger.failure("the disk is full", error: POSIXError(.ENOSPC))
        #expect(log.levels(of: "the disk is full") == [.error])
    }
}

/// A logger whose lines are kept, to check what was logged at which level.
final class CapturedLog: Sendable {
    let entries = Mutex<[(level: Logger.Level, message: String)]>([])

    var logger: Logger {
        Logger(label: "captured") { _ in Handler(log: self) }
    }

    func levels(of message: String) -> [Logger.Level] {
        entries.withLock { $0.filter { $0.message == message }.map(\.level) }
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.entries.withLock { $0.append((event.level, event.message.description)) }
        }
    }
}
