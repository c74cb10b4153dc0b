import Contracts
import Foundation
import ServiceHTTP
import Synchronization
import TestSupport

// notify-bench nearby [users] [alerts] [seconds]
//   One tenant with `users` PIN customers (cheap Argon2 settings: sign-in is not measured
//   here); the first `alerts` sign in with their duress PIN and place their alert within
//   3 km of one point; every customer then polls `GET /v1/alerts/nearby` (1 km) from their own
//   place through the gateway (TLS), open loop, at `users` polls per 15 s, for `seconds`.
//   Prints the latencies and the CPU the polling cost the gateway, alerts and auth (its
//   session lookups), each as a share of one core.

/// A place within about 3 km of the centre, the same for the same index.
func benchPlace(_ index: Int) -> GeoLocation {
    let north = Double((index &* 7_919) % 6_001 - 3_000)
    let east = Double((index &* 104_729) % 6_001 - 3_000)
    return GeoLocation(
        latitude: 51.5007 + north / 111_195, longitude: -0.1246 + east / (111_195 * cos(51.5007 * .pi / 180)))
}

/// What the polls saw.
final class Polls: Sendable {
    let latencies = Mutex<[Double]>([])
    let failures = Mutex<[String]>([])
    let found = Mutex(0)
}

func nearby(userCount: Int, alertCount: Int, duration: Int) async throws {
    let stack = try await startStack(["auth.argon2.memoryKib": "256", "auth.argon2.iterations": "1"])
    do {
        let admin = try await signUp(1, on: stack)[0]
        let grant = try await stack.pinhole(["admin", "grant", "--email", "bench0@example.com", "--role", "admin"])
        guard grant.status == 0 else { throw StackError("admin grant: \(grant.lines)") }
        var created: FullResponse?
        for _ in 0..<50 where created?.status != 201 {
            created = try await stack.client.call(
                .POST, stack.url("/v1/admin/tenants"), token: admin.token, json: TenantCreate(name: "Bench"))
            if created?.status != 201 { try await Task.sleep(for: .milliseconds(200)) }
        }
        guard let created, created.status == 201 else { throw StackError("tenant: \(created?.text ?? "-")") }
        let tenant = try created.decode(TenantKeyIssued.self)
        @Sendable func reference(_ index: Int) -> String { String(format: "c%06d", index) }

        let setup = ContinuousClock.now
        try await concurrently(userCount, width: 8) { index in
            let enrolled = try await stack.client.call(
                .POST, stack.url("/v1/tenants/\(tenant.tenant.id)/customers"), token: admin.token,
                json: CustomerEnrolment(customerRef: reference(index), pin: "2468", duressPin: "1357"))
            guard enrolled.status == 201 else { throw StackError("enrol \(index): \(enrolled.text)") }
        }
        let tokens = Mutex<[Int: String]>([:])
        try await concurrently(userCount, width: 8) { index in
            let duress = index < alertCount
            let login = try await stack.client.call(
                .POST, stack.url("/v1/sessions/login"),
                json: PinLoginRequest(
                    tenantKey: tenant.apiKey, customerRef: reference(index), pin: duress ? "1357" : "2468",
                    device: DeviceInfo(platform: "ios", id: "bench-\(index)")))
            let answer = try login.decode(PinLoginResponse.self)
            guard let token = answer.accessToken, let session = answer.sessionId else {
                throw StackError("sign-in \(index): \(login.text)")
            }
            if duress {
                let placed = try await stack.client.call(
                    .POST, stack.url("/v1/alerts/duress"), token: token,
                    json: DuressAlertRequest(sessionId: session, tenantKey: tenant.apiKey, location: benchPlace(index)))
                guard placed.status == 200 else { throw StackError("alert \(index): \(placed.text)") }
            }
            tokens.withLock { $0[index] = token }
        }
        let tokenOf = tokens.withLock { all in (0..<userCount).map { all[$0]! } }
        // Every alert is in alerts (auth's events arrive on its outbox's next poll).
        let watcher = tokenOf[userCount - 1]
        var open = 0
        for _ in 0..<100 where open < alertCount {
            let all = try await stack.client.call(
                .GET, stack.url("/v1/alerts/nearby?lat=51.5007&lon=-0.1246&radius_m=10000"), token: watcher)
            open = try all.decode(NearbyAlerts.self).alerts.count
            if open < alertCount { try await Task.sleep(for: .milliseconds(200)) }
        }
        print(
            String(
                format: "nearby: %d customers of one tenant, %d open alerts (%d seen), set up in %.0f s", userCount,
                alertCount, open, seconds(ContinuousClock.now - setup)))

        let pids = [ServiceName.gateway, .alerts, .auth].map { ($0, stack.pid(of: $0)) }
        let rate = Double(userCount) / 15
        let total = Int(rate * Double(duration))
        let polls = Polls()
        let cpuBefore = pids.map { cpuSeconds(of: $0.1) }
        let start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for poll in 0..<total {
                let due = start + .nanoseconds(Int64(Double(poll) / rate * 1e9))
                if due > ContinuousClock.now { try? await Task.sleep(until: due) }
                let user = poll % userCount
                let place = benchPlace(user)
                let url = stack.url(
                    "/v1/alerts/nearby?tenantKey=\(tenant.apiKey)&lat=\(place.latitude)&lon=\(place.longitude)"
                        + "&radius_m=1000&ts=0")
                group.addTask {
                    let sent = ContinuousClock.now
                    do {
                        let answer = try await stack.client.call(.GET, url, token: tokenOf[user])
                        let elapsed = seconds(ContinuousClock.now - sent) * 1000
                        guard answer.status == 200 else {
                            polls.failures.withLock { $0.append("\(answer.status)") }
                            return
                        }
                        polls.latencies.withLock { $0.append(elapsed) }
                        let count = try answer.decode(NearbyAlerts.self).alerts.count
                        polls.found.withLock { $0 += count }
                    } catch {
                        polls.failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        let wall = seconds(ContinuousClock.now - start)
        let cpuAfter = pids.map { cpuSeconds(of: $0.1) }
        let sorted = polls.latencies.withLock { $0.sorted() }
        print(
            String(
                format: "%d polls in %.1f s (%.0f/s; asked %.0f/s), %d failed; %.2f alerts per answer", sorted.count,
                wall, Double(sorted.count) / wall, rate, polls.failures.withLock { $0.count },
                Double(polls.found.withLock { $0 }) / Double(max(1, sorted.count))))
        print(
            String(
                format: "latency through the gateway: p50 %.2f ms, p90 %.2f, p99 %.2f, max %.2f",
                percentile(sorted, 0.5), percentile(sorted, 0.9), percentile(sorted, 0.99), sorted.last ?? .nan))
        for (index, (name, _)) in pids.enumerated() {
            print(
                String(
                    format: "%@: %.1f %% of one core", name.rawValue,
                    (cpuAfter[index] - cpuBefore[index]) / wall * 100))
        }
        if let first = polls.failures.withLock({ $0.first }) { print("first failure: \(first)") }
    } catch {
        print(stack.logs(of: .alerts).suffix(20).joined(separator: "\n"))
        await stack.stop()
        throw error
    }
    await stack.stop()
}
