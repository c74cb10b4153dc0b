import Contracts
import Foundation
import GRDB
import Logging
import Metrics
import ServiceHTTP
import ServiceStore

/// Turns committed notifications into pushes, at least once per device, through the kit's
/// durable jobs.
///
/// Making a notification schedules a `push.notification` job in the same transaction. Due jobs
/// run in groups (``JobRunner/completeEach(_:inGroupsOf:run:)``) that read their plans in one
/// transaction (``AlertsStore/pushPlans(for:now:)``: nothing for a notification that is gone,
/// read, turned off, from someone blocked, or stale); each job then ends on its own. A job
/// sends to every device without a delivery row, all providers at once, and records each answer
/// in the transaction that completes the job: a device the provider acknowledged is never
/// pushed that notification again, and a SIGKILL before that commit sends it again (APNs
/// collapses the repeat by its collapse id). Dead tokens remove their device; rate limits and
/// outages retry the devices still waiting, after the provider's `Retry-After` or the runner's
/// backoff. Expo's tickets are checked for receipts `receiptDelay` later, in a job of their own.
/// During the user's quiet hours a push that is not critical waits for their end (the job is
/// due again then) or, in `silent` mode, goes at once without sound.
struct PushDelivery: Sendable {
    static let kind: JobKind = "push.notification"
    static let receiptsKind: JobKind = "push.expo-receipts"

    struct Job: Codable, Sendable {
        var notificationId: String
    }

    /// Expo ticket id → device id.
    struct ReceiptsJob: Codable, Sendable {
        var tickets: [String: String]
    }

    /// Jobs whose plans are read together (a fan-out's pushes; a retry runs alone).
    static let groupSize = 32

    let store: AlertsStore
    let senders: [PushProvider: any PushSender]
    let expo: ExpoSender?
    let receiptDelay: TimeInterval
    let jobs: JobQueue
    let clock: any WallClock
    let logger: Logger

    func register(on runner: inout JobRunner) {
        runner.completeEach(Self.kind, inGroupsOf: Self.groupSize) { (jobs: [(payload: Job, attempt: JobAttempt)]) in
            try await deliver(jobs.map(\.payload))
        }
        runner.complete(Self.receiptsKind) { (job: ReceiptsJob, attempt) in try await checkReceipts(job, attempt) }
    }

    /// Delivers a group of notifications, their plans read together; says how each ended.
    func deliver(_ jobs: [Job]) async throws -> [JobCompletion] {
        let start = clock.now()
        let plans = try await store.pushPlans(for: jobs.map(\.notificationId), now: start)
        var completions = [JobCompletion](repeating: .done(), count: jobs.count)
        await withTaskGroup(of: (Int, JobCompletion).self) { group in
            for (index, plan) in plans.enumerated() {
                guard let plan else { continue }
                group.addTask { (index, await deliver(plan, of: jobs[index].notificationId, at: start)) }
            }
            for await (index, completion) in group { completions[index] = completion }
        }
        return completions
    }

    /// Pushes one notification's plan to the devices still waiting for it.
    func deliver(_ plan: AlertsStore.PushPlan, of notificationID: String, at start: Date) async -> JobCompletion {
        var plan = plan
        let waiting = plan.devices.filter { senders[$0.provider] != nil }
        guard !waiting.isEmpty else { return .done() }
        if let quiet = plan.quietHours, !plan.message.critical, let ends = quiet.end(ifQuietAt: start) {
            switch quiet.mode {
            case .hold: return .postpone(until: ends)
            case .silent: plan.message.silent = true
            }
        }
        let byProvider = Dictionary(grouping: waiting, by: \.provider)
        let message = plan.message
        // Each provider's answers are settled as they come. While another provider is still
        // answering, they are committed at once: a fast provider's acknowledgement must not
        // wait on a slow one, or a crash in between would push to its devices twice. The last
        // provider's commit with the job's completion (one write for a single-provider user).
        var last = Settled()
        await withTaskGroup(of: (PushProvider, [String: PushOutcome]).self) { group in
            for (provider, devices) in byProvider {
                guard let sender = senders[provider] else { continue }
                group.addTask { (provider, await sender.send(message, to: devices)) }
            }
            var pending = byProvider.count
            for await (provider, answers) in group {
                pending -= 1
                let settled = settle(answers, devices: byProvider[provider] ?? [], notification: notificationID)
                guard pending > 0 else {
                    last.merge(settled)
                    continue
                }
                do {
                    try await store.database.write(writer(settled, notification: notificationID))
                    last.retries += settled.retries
                } catch {
                    last.merge(settled)
                }
            }
        }
        let record = writer(last, notification: notificationID)
        guard !last.retries.isEmpty else { return .done(recording: record) }
        let after = last.retries.compactMap(\.after).max()
        return .retry(
            after: after, "\(last.retries.count) device(s) to retry: \(last.retries[0].reason)", recording: record)
    }

    /// What one provider's answers mean for its devices.
    struct Settled: Sendable {
        var rows: [PushDeliveryRecord] = []
        var dead: [DeviceRecord] = []
        var tickets: [String: String] = [:]
        var retries: [(after: TimeInterval?, reason: String)] = []

        mutating func merge(_ other: Settled) {
            rows += other.rows
            dead += other.dead
            tickets.merge(other.tickets) { first, _ in first }
            retries += other.retries
        }
    }

    func settle(_ outcomes: [String: PushOutcome], devices: [DeviceRecord], notification: String) -> Settled {
        let now = clock.now()
        var settled = Settled()
        for device in devices {
            let outcome = outcomes[device.id] ?? .retry(after: nil, "no answer")
            Counter(
                label: "pinhole_push_total",
                dimensions: [("provider", device.provider.rawValue), ("outcome", outcome.label)]
            ).increment()
            switch outcome {
            case .delivered(let providerID):
                settled.rows.append(
                    PushDeliveryRecord(
                        notificationId: notification, deviceId: device.id, provider: device.provider,
                        status: .delivered, providerId: providerID, detail: nil, at: now))
                if device.provider == .expo, let providerID { settled.tickets[providerID] = device.id }
            case .failed(let reason):
                settled.rows.append(
                    PushDeliveryRecord(
                        notificationId: notification, deviceId: device.id, provider: device.provider,
                        status: .failed, providerId: nil, detail: reason, at: now))
                logger.warning(
                    "push refused", metadata: ["provider": "\(device.provider.rawValue)", "reason": "\(reason)"])
            case .unregistered(let reason):
                settled.dead.append(device)
                logger.info(
                    "push token is dead; device removed",
                    metadata: ["provider": "\(device.provider.rawValue)", "reason": "\(reason)"])
            case .retry(let after, let reason):
                settled.retries.append((after, reason))
            }
        }
        return settled
    }

    /// Records what was delivered (a retry skips those devices), removes dead devices and
    /// schedules the check of Expo's receipts.
    func writer(_ settled: Settled, notification: String) -> @Sendable (Database) throws -> Void {
        let (jobs, due) = (self.jobs, clock.now().addingTimeInterval(receiptDelay))
        return { db in
            for row in settled.rows { try row.insertPrepared(db) }
            for device in settled.dead { try AlertsStore.removeDeadDevice(id: device.id, token: device.token, in: db) }
            if !settled.tickets.isEmpty {
                // One provider's answer holds all of Expo's tickets: one check per notification.
                try jobs.schedule(
                    Self.receiptsKind, key: notification, payload: ReceiptsJob(tickets: settled.tickets),
                    at: due, onConflict: .replace, in: db)
            }
        }
    }

    /// Expo's receipts: a `DeviceNotRegistered` removes the device. Receipts not ready yet are
    /// asked for again (twice more), then let go.
    func checkReceipts(_ job: ReceiptsJob, _ attempt: JobAttempt) async throws -> JobCompletion {
        guard let expo else { return .done() }
        guard let receipts = await expo.receipts(Array(job.tickets.keys)) else {
            return .retry(after: nil, "Expo receipts cannot be fetched")
        }
        let dead = receipts.compactMap { ticket, outcome -> String? in
            guard case .unregistered = outcome else { return nil }
            return job.tickets[ticket]
        }
        let record: @Sendable (Database) throws -> Void = { db in try AlertsStore.removeDevices(ids: dead, in: db) }
        if receipts.count < job.tickets.count && attempt.number < 3 {
            let left = ReceiptsJob(tickets: job.tickets.filter { receipts[$0.key] == nil })
            let (jobs, due, key) = (self.jobs, clock.now().addingTimeInterval(receiptDelay), attempt.key)
            return .done { db in
                try record(db)
                try jobs.schedule(Self.receiptsKind, key: key, payload: left, at: due, onConflict: .replace, in: db)
            }
        }
        return .done(recording: record)
    }
}

extension PushOutcome {
    var label: String {
        switch self {
        case .delivered: "delivered"
        case .unregistered: "unregistered"
        case .retry: "retry"
        case .failed: "failed"
        }
    }
}
