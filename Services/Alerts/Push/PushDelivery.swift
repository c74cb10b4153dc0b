import Contracts
import Foundation
import GRDB
import Logging
import Metrics
import ServiceKit

/// Turns committed notifications into pushes, at least once per device, through the kit's
/// durable jobs.
///
/// Making a notification schedules a `push.notification` job in the same transaction. The job
/// reads what is left to do (``AlertsStore/pushPlan(for:now:)``: nothing for a notification
/// that is gone, read, turned off, from someone blocked, or stale), sends to every device
/// without a delivery row, all providers at once, and records each answer in the transaction
/// that completes the job: a device the provider acknowledged is never pushed that
/// notification again, and a SIGKILL before that commit sends it again (APNs collapses the
/// repeat by its collapse id). Dead tokens remove their device; rate limits and outages retry
/// the devices still waiting, after the provider's `Retry-After` or the runner's backoff.
/// Expo's tickets are checked for receipts `receiptDelay` later, in a job of their own. During
/// the user's quiet hours a push that is not critical waits for their end (the job is due
/// again then) or, in `silent` mode, goes at once without sound.
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

    let store: AlertsStore
    let senders: [PushProvider: any PushSender]
    let expo: ExpoSender?
    let receiptDelay: TimeInterval
    let jobs: JobQueue
    let clock: any WallClock
    let logger: Logger

    func register(on runner: inout JobRunner) {
        runner.complete(Self.kind) { (job: Job, attempt) in try await deliver(job, attempt) }
        runner.complete(Self.receiptsKind) { (job: ReceiptsJob, attempt) in try await checkReceipts(job, attempt) }
    }

    func deliver(_ job: Job, _ attempt: JobAttempt) async throws -> JobCompletion {
        let start = clock.now()
        guard var plan = try await store.pushPlan(for: job.notificationId, now: start) else { return .done() }
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
        let outcomes = await withTaskGroup(of: [String: PushOutcome].self) { group in
            for (provider, devices) in byProvider {
                guard let sender = senders[provider] else { continue }
                group.addTask { await sender.send(message, to: devices) }
            }
            var all: [String: PushOutcome] = [:]
            for await answers in group { all.merge(answers) { first, _ in first } }
            return all
        }

        let now = clock.now()
        var rows: [PushDeliveryRecord] = []
        var dead: [DeviceRecord] = []
        var tickets: [String: String] = [:]
        var retries: [(after: TimeInterval?, reason: String)] = []
        for device in waiting {
            let outcome = outcomes[device.id] ?? .retry(after: nil, "no answer")
            Counter(
                label: "pinhole_push_total",
                dimensions: [("provider", device.provider.rawValue), ("outcome", outcome.label)]
            ).increment()
            switch outcome {
            case .delivered(let providerID):
                rows.append(
                    PushDeliveryRecord(
                        notificationId: job.notificationId, deviceId: device.id, provider: device.provider,
                        status: .delivered, providerId: providerID, detail: nil, at: now))
                if device.provider == .expo, let providerID { tickets[providerID] = device.id }
            case .failed(let reason):
                rows.append(
                    PushDeliveryRecord(
                        notificationId: job.notificationId, deviceId: device.id, provider: device.provider,
                        status: .failed, providerId: nil, detail: reason, at: now))
                logger.warning(
                    "push refused", metadata: ["provider": "\(device.provider.rawValue)", "reason": "\(reason)"])
            case .unregistered(let reason):
                dead.append(device)
                logger.info(
                    "push token is dead; device removed",
                    metadata: ["provider": "\(device.provider.rawValue)", "reason": "\(reason)"])
            case .retry(let after, let reason):
                retries.append((after, reason))
            }
        }
        let (jobs, receiptDelay, notificationID) = (self.jobs, self.receiptDelay, job.notificationId)
        let record: @Sendable (Database) throws -> Void = { [rows, dead, tickets] db in
            for row in rows { try row.insert(db, onConflict: .ignore) }
            for device in dead { try AlertsStore.removeDeadDevice(id: device.id, token: device.token, in: db) }
            if !tickets.isEmpty {
                try jobs.schedule(
                    Self.receiptsKind, key: notificationID, payload: ReceiptsJob(tickets: tickets),
                    at: now.addingTimeInterval(receiptDelay), onConflict: .replace, in: db)
            }
        }
        guard !retries.isEmpty else { return .done(recording: record) }
        let after = retries.compactMap(\.after).max()
        return .retry(
            after: after, "\(retries.count) device(s) to retry: \(retries[0].reason)", recording: record)
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
