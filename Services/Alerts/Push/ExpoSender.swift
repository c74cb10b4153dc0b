import AsyncHTTPClient
import Contracts
import Foundation
import ServiceHTTP

/// Expo's push service: messages in batches of at most 100, a push ticket per message, and
/// receipts fetched later (``receipts(_:)``) because a ticket only says Expo accepted it.
/// `DeviceNotRegistered`, in a ticket or a receipt, means the token is dead; `429` and `5xx`
/// retry the batch.
struct ExpoSender: PushSender {
    let provider = PushProvider.expo
    let settings: AlertsSettings.Expo
    let http: HTTPClient

    static let batchLimit = 100

    func send(_ message: PushMessage, to devices: [DeviceRecord]) async -> [String: PushOutcome] {
        var outcomes: [String: PushOutcome] = [:]
        for start in stride(from: 0, to: devices.count, by: Self.batchLimit) {
            let batch = Array(devices[start..<min(start + Self.batchLimit, devices.count)])
            for (id, outcome) in await send(message, batch: batch) { outcomes[id] = outcome }
        }
        return outcomes
    }

    private var authorization: [(String, String)] {
        settings.accessToken.map { [("authorization", "Bearer \($0)")] } ?? []
    }

    private func send(_ message: PushMessage, batch: [DeviceRecord]) async -> [String: PushOutcome] {
        let messages: [[String: Any]] = batch.map { device in
            var fields: [String: Any] = [
                "to": device.token, "title": message.title, "body": message.body, "data": message.appData,
                "badge": message.badge, "priority": message.critical ? "high" : "default",
                "channelId": message.type.rawValue,
            ]
            if !message.silent { fields["sound"] = "default" }
            return fields
        }
        let body = (try? JSONSerialization.data(withJSONObject: messages, options: [.sortedKeys])) ?? Data()
        let response: PushHTTP.Answer
        do {
            response = try await PushHTTP.postJSON(
                body, to: "\(settings.baseURL)/--/api/v2/push/send", headers: authorization, http: http)
        } catch {
            return Self.all(batch, .retry(after: nil, "Expo cannot be reached: \(error)"))
        }
        switch response.status {
        case 200:
            struct Tickets: Decodable { var data: [Ticket] }
            guard let tickets = try? JSONDecoder().decode(Tickets.self, from: response.body).data,
                tickets.count == batch.count
            else { return Self.all(batch, .retry(after: nil, "Expo answered without a ticket per message")) }
            var outcomes: [String: PushOutcome] = [:]
            for (device, ticket) in zip(batch, tickets) { outcomes[device.id] = ticket.outcome }
            return outcomes
        case 429, 500...:
            return Self.all(batch, .retry(after: PushHTTP.retryAfter(response.headers), "Expo \(response.status)"))
        default:
            return Self.all(batch, .failed("Expo \(response.status)"))
        }
    }

    /// A push ticket or receipt: `ok` (with the ticket id), or `error` with a reason.
    struct Ticket: Decodable {
        struct Details: Decodable { var error: String? }
        var status: String
        var id: String?
        var message: String?
        var details: Details?

        var outcome: PushOutcome {
            if status == "ok" { return .delivered(id) }
            let reason = details?.error ?? message ?? "error"
            return reason == "DeviceNotRegistered" ? .unregistered(reason) : .failed(reason)
        }
    }

    /// The receipts of `ticketIDs` (at most 1,000 a call); nil when Expo cannot answer now.
    /// A ticket Expo has no receipt for yet is left out.
    func receipts(_ ticketIDs: [String]) async -> [String: PushOutcome]? {
        let body = (try? JSONSerialization.data(withJSONObject: ["ids": ticketIDs])) ?? Data()
        guard
            let response = try? await PushHTTP.postJSON(
                body, to: "\(settings.baseURL)/--/api/v2/push/getReceipts", headers: authorization, http: http),
            response.status == 200
        else { return nil }
        struct Receipts: Decodable { var data: [String: Ticket] }
        guard let receipts = try? JSONDecoder().decode(Receipts.self, from: response.body).data else { return nil }
        return receipts.mapValues(\.outcome)
    }

    private static func all(_ devices: [DeviceRecord], _ outcome: PushOutcome) -> [String: PushOutcome] {
        Dictionary(uniqueKeysWithValues: devices.map { ($0.id, outcome) })
    }
}
