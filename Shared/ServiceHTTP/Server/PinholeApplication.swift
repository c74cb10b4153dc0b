import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Hummingbird's `Application`, with one addition: while a route runs, the request's writer is
/// reachable through ``InformationalResponses/current``, so the route can send `1xx` heads
/// before its answer. Everything else is as Hummingbird's: the responder, a request id in the
/// logger, `Date` on every answer, a 500 for an error no middleware turned into an answer.
public struct PinholeApplication<Responder: HTTPResponder>: ApplicationProtocol
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    public let responder: Responder
    public let server: HTTPServerBuilder
    public let configuration: ApplicationConfiguration
    public let logger: Logger
    public let services: [any Service]
    private let serverRunning: @Sendable (any Channel) async -> Void

    public init(
        responder: Responder, server: HTTPServerBuilder, configuration: ApplicationConfiguration,
        services: [any Service], onServerRunning: @escaping @Sendable (any Channel) async -> Void, logger: Logger
    ) {
        self.responder = responder
        self.server = server
        self.configuration = configuration
        self.services = services
        self.serverRunning = onServerRunning
        self.logger = logger
    }

    public var eventLoopGroup: any EventLoopGroup { MultiThreadedEventLoopGroup.singleton }

    public func onServerRunning(_ channel: any Channel) async { await serverRunning(channel) }

    public func run() async throws {
        let dates = HTTPDateCache()
        let responder = self.responder
        let serverName = configuration.serverName
        let logger = self.logger
        let server = try server.buildServer(
            configuration: ServerConfiguration(
                address: configuration.address, serverName: serverName, backlog: configuration.backlog,
                reuseAddress: configuration.reuseAddress,
                availableConnectionsDelegate: configuration.availableConnectionsDelegate),
            eventLoopGroup: eventLoopGroup, logger: logger
        ) { (request, writer: consuming ResponseWriter, channel) in
            let informational = InformationalResponses(writer)
            var requestLogger = logger
            requestLogger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID())
            var response = try await withLogger(requestLogger) { logger in
                let context = Responder.Context(source: .init(channel: channel, logger: logger))
                do {
                    return try await InformationalResponses.$current.withValue(informational) {
                        try await responder.respond(to: request, context: context)
                    }
                } catch let error as HTTPParserError {
                    throw error
                } catch {
                    logger.debug("Unrecognised Error", metadata: ["error.type": "\(error)"])
                    return Response(status: .internalServerError, body: .init())
                }
            }
            response.headers[.date] = dates.current
            if let serverName { response.headers[.server] = serverName }
            do {
                try await informational.finish().write(response: response.head, body: response.body)
            } catch is HTTPParserError {
                // The channel answers a parser error with a 400 of its own; one while this answer
                // is being written must not make a second answer (as Hummingbird's application).
                throw AnswerInterrupted()
            }
        } onServerRunning: {
            await self.onServerRunning($0)
        }
        try await ServiceGroup(configuration: .init(services: services + [dates, server], logger: logger)).run()
    }
}

/// The request's body broke while its answer was being written: the connection just closes.
struct AnswerInterrupted: Error {}

/// The `Date` header's value (RFC 9110 IMF-fixdate), made once a second rather than per answer.
final class HTTPDateCache: Service, Sendable {
    private let value = Mutex(HTTPDate.format(Date()))

    var current: String { value.withLock { $0 } }

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: .seconds(1))
                let now = HTTPDate.format(Date())
                self.value.withLock { $0 = now }
            }
        }
    }
}

/// HTTP dates (RFC 9110 §5.6.7 IMF-fixdate): `Date`, `Upload-Expires`, `Retry-After`.
public enum HTTPDate {
    public static func format(_ date: Date) -> String {
        date.formatted(
            Date.VerbatimFormatStyle(
                format:
                    "\(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .defaultDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) GMT",
                locale: Locale(identifier: "en_US_POSIX"), timeZone: TimeZone(identifier: "GMT")!,
                calendar: Calendar(identifier: .gregorian)))
    }
}
