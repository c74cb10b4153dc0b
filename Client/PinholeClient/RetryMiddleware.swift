import Foundation
import HTTPTypes
import OpenAPIRuntime

/// When the client sends a request again by itself.
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// A `Retry-After` longer than this is handed to the caller instead of waited for.
    public var longestWait: Duration
    /// The wait after a broken connection or a 503 without `Retry-After`, doubled each time.
    public var backoff: Duration

    public init(maxAttempts: Int = 3, longestWait: Duration = .seconds(30), backoff: Duration = .milliseconds(250)) {
        self.maxAttempts = maxAttempts
        self.longestWait = longestWait
        self.backoff = backoff
    }

    /// Never again: every answer and error reaches the caller.
    public static let never = RetryPolicy(maxAttempts: 1)
}

/// Sends a request again after a 429 or 503 (waiting `Retry-After`) or a broken connection,
/// when repeating it is safe: a method HTTP calls idempotent, or a creation carrying an
/// `Idempotency-Key`, which this middleware adds (one key per call, the same on every attempt)
/// so the server answers a repeat as it answered the first.
struct RetryMiddleware: ClientMiddleware {
    let policy: RetryPolicy
    var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }

    /// Operations the API document gives an `Idempotency-Key` parameter (the client's tests keep
    /// this list equal to the document's).
    static let idempotentCreations: Set<String> = [
        "appealAction", "createChallenge", "createPost", "createSpot", "recoverStreak", "register",
        "replyInConversation", "report", "sendFriendRequest", "sendMessage", "snap", "takeModerationAction",
        "uploadPhoto",
    ]

    /// The refresh token exchange may be repeated: within the rotation grace the server answers
    /// an exchanged token with the same new pair.
    static let repeatableOperations: Set<String> = ["refresh"]

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        var safe =
            [.get, .head, .options, .put, .delete].contains(request.method)
            || Self.repeatableOperations.contains(operationID)
        if Self.idempotentCreations.contains(operationID) {
            if request.headerFields[.idempotencyKey] == nil {
                request.headerFields[.idempotencyKey] = UUID().uuidString
            }
            safe = true
        }
        let repeatable = safe && (body.map { $0.iterationBehavior == .multiple } ?? true)
        var attempt = 1
        while true {
            let wait: Duration
            do {
                let (response, responseBody) = try await next(request, body, baseURL)
                let keyed = request.headerFields[.idempotencyKey] != nil
                guard repeatable, attempt < policy.maxAttempts,
                    let delay = delay(after: response, attempt: attempt, keyed: keyed)
                else { return (response, responseBody) }
                await responseBody?.discard()
                wait = delay
            } catch {
                guard repeatable, attempt < policy.maxAttempts, !(error is CancellationError) else { throw error }
                wait = backoff(attempt)
            }
            try await sleep(wait)
            attempt += 1
        }
    }

    /// How long to wait before sending again, or nil to hand the answer to the caller.
    func delay(after response: HTTPResponse, attempt: Int, keyed: Bool) -> Duration? {
        switch response.status.code {
        case 429, 503:
            guard let header = response.headerFields[.retryAfter] else {
                return response.status.code == 503 ? backoff(attempt) : nil
            }
            guard let wait = Self.retryAfter(header, now: Date()), wait <= policy.longestWait else { return nil }
            return wait
        case 409 where keyed && attempt > 1:
            // A repeat that meets its own first attempt still running (`IDEMPOTENCY_KEY_IN_PROGRESS`).
            return backoff(attempt)
        default:
            return nil
        }
    }

    func backoff(_ attempt: Int) -> Duration { policy.backoff * (1 << min(attempt - 1, 10)) }

    /// `Retry-After` as delay-seconds or an HTTP date (RFC 9110 §10.2.3).
    static func retryAfter(_ value: String, now: Date) -> Duration? {
        let value = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(value), seconds >= 0 { return .seconds(seconds) }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = format.date(from: value) else { return nil }
        return .milliseconds(max(0, Int((date.timeIntervalSince(now) * 1000).rounded(.up))))
    }
}

extension HTTPField.Name {
    static let idempotencyKey = Self("Idempotency-Key")!
}
