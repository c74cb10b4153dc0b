import AsyncHTTPClient
import Contracts
import Logging
import ServiceHTTP
import ServiceLifecycle

/// The configured providers over one HTTP client (HTTP/2 where offered): the process's
/// ``PushHTTP/shared`` one, or, when extra trust roots are configured, one of its own, shut
/// down with the service.
struct PushClients: Service {
    let http: HTTPClient
    let ownsClient: Bool
    let senders: [PushProvider: any PushSender]
    let expo: ExpoSender?

    init(settings: AlertsSettings, clock: any WallClock) throws {
        let http = settings.trustRootsFile.map { PushHTTP.makeClient(trustRoots: $0) } ?? PushHTTP.shared
        self.ownsClient = settings.trustRootsFile != nil
        var senders: [PushProvider: any PushSender] = [:]
        do {
            if let apns = settings.apns { senders[.apns] = try APNsSender(settings: apns, http: http, clock: clock) }
            if let fcm = settings.fcm { senders[.fcm] = try FCMSender(settings: fcm, http: http, clock: clock) }
        } catch {
            if ownsClient { try? http.syncShutdown() }
            throw ConfigurationError("a push provider's key cannot be read: \(error)")
        }
        self.expo = settings.expo.map { ExpoSender(settings: $0, http: http) }
        if let expo { senders[.expo] = expo }
        self.http = http
        self.senders = senders
    }

    /// Says once, at start, which providers are off (their devices are kept, not pushed to).
    func logProviders(_ logger: Logger) {
        let off = PushProvider.allCases.filter { senders[$0] == nil }.map(\.rawValue)
        logger.info(
            "push providers", metadata: ["on": "\(senders.keys.map(\.rawValue).sorted())", "off": "\(off)"])
    }

    func run() async throws {
        try? await gracefulShutdown()
        if ownsClient { try await http.shutdown() }
    }
}
