/// Every error code Pinhole answers with, in one place.
///
/// Codes are part of the public contract: clients switch on them, so a code is never renamed
/// or reused for a different meaning. Each code carries the HTTP status it is sent with.
public enum ErrorCode: String, Codable, Sendable, CaseIterable {
    // MARK: - 400
    /// The body is not valid JSON or does not have the expected shape.
    case malformedRequest = "MALFORMED_REQUEST"
    /// A field is missing, has the wrong type or is out of range.
    case validationFailed = "VALIDATION_FAILED"
    /// A pagination cursor was not issued by this endpoint or was altered.
    case invalidCursor = "INVALID_CURSOR"
    /// The `Idempotency-Key` header is malformed (empty or longer than 255 characters).
    case invalidIdempotencyKey = "INVALID_IDEMPOTENCY_KEY"
    /// Duress alerts: an NFC acknowledgement's payload is not `trf:duress:<alertId>` of the alert
    /// acknowledged.
    case nfcPayloadMismatch = "NFC_PAYLOAD_MISMATCH"
    /// App Attest: the challenge is unknown, expired, used, or another session's: ask
    /// `POST /v1/attestation/challenges` for a new one.
    case attestationChallengeInvalid = "ATTESTATION_CHALLENGE_INVALID"

    // MARK: - 401
    /// No bearer token was sent to a route that needs one.
    case authenticationRequired = "AUTHENTICATION_REQUIRED"
    /// The bearer token is malformed, forged, expired or meant for someone else.
    case invalidToken = "INVALID_TOKEN"
    /// Email and password do not match an account.
    case invalidCredentials = "INVALID_CREDENTIALS"
    /// A one-time code is wrong, expired or used up: request a new one.
    case invalidCode = "INVALID_CODE"
    /// The refresh token is unknown, expired, revoked or was reused: sign in again.
    case reauthRequired = "REAUTH_REQUIRED"
    /// PIN sign-in: the tenant API key is unknown.
    case invalidTenantKey = "INVALID_TENANT_KEY"

    // MARK: - 403
    /// The caller is authenticated but may not do this.
    case forbidden = "FORBIDDEN"
    /// PIN sign-in: the tenant exists but is suspended.
    case tenantSuspended = "TENANT_SUSPENDED"
    /// An internal route was called by a peer whose certificate does not allow it.
    case peerNotAllowed = "PEER_NOT_ALLOWED"
    /// A guest token (anonymous browsing) was used for something other than reading.
    case guestReadOnly = "GUEST_READ_ONLY"
    /// This needs a verified phone number (`POST /v1/me/phone/verification`).
    case phoneVerificationRequired = "PHONE_VERIFICATION_REQUIRED"
    /// The deployment lets only accounts with a proven email address post, ask for friends
    /// and send messages (`POST /v1/me/email/verification` mails a new code).
    case emailVerificationRequired = "EMAIL_VERIFICATION_REQUIRED"
    /// Posting: this needs a recent App Attest assertion from this session
    /// (`POST /v1/attestation/assertions`) and there is none.
    case attestationRequired = "ATTESTATION_REQUIRED"
    /// Direct messages: a block stands between the sender and the recipient of a direct message.
    case cannotMessage = "CANNOT_MESSAGE"
    /// A moderator suspended this account: it can read, sign out, delete itself and appeal,
    /// but not post or change anything until the suspension ends (the message says when).
    case accountSuspended = "ACCOUNT_SUSPENDED"
    /// A moderator banned this account: it cannot sign in.
    case accountBanned = "ACCOUNT_BANNED"

    // MARK: - 404, 405, 409, 413, 415, 422, 429
    /// The object does not exist, or belongs to someone else.
    case notFound = "NOT_FOUND"
    /// The route exists but not with this method.
    case methodNotAllowed = "METHOD_NOT_ALLOWED"
    /// The change clashes with existing state (a unique value already taken, say).
    case conflict = "CONFLICT"
    /// A request with this `Idempotency-Key` is still being processed.
    case idempotencyKeyInProgress = "IDEMPOTENCY_KEY_IN_PROGRESS"
    /// The body is larger than this route accepts.
    case payloadTooLarge = "PAYLOAD_TOO_LARGE"
    /// The request's headers are larger than the server accepts.
    case headersTooLarge = "HEADERS_TOO_LARGE"
    /// The content type is not accepted here.
    case unsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE"
    /// The `Idempotency-Key` was already used with a different request.
    case idempotencyKeyReused = "IDEMPOTENCY_KEY_REUSED"
    /// Streaks: recovering a streak needs a recovery token and the user has none (the app
    /// shows its paywall).
    case noRecoveryTokens = "NO_RECOVERY_TOKENS"
    /// Streaks: this streak cannot be recovered (not broken by a missed day, its one
    /// recovery spent, or the day after the missed one has closed).
    case recoveryUnavailable = "RECOVERY_UNAVAILABLE"
    /// Streaks: the free plan holds at most three active streaks; a fourth needs Pro (the app
    /// shows its paywall).
    case streakLimitReached = "STREAK_LIMIT_REACHED"
    /// Streaks: accepting would give the request's sender, on the free plan, a fourth active
    /// streak; the request stays pending until one of theirs ends or they go Pro.
    case friendStreakLimitReached = "FRIEND_STREAK_LIMIT_REACHED"
    /// Streaks: a subscriber's feature (custom prompts) asked for on the free plan (the app shows its
    /// paywall).
    case premiumRequired = "PREMIUM_REQUIRED"
    /// Streaks: a snap sent outside the sender's daily window (with its 30-minute grace);
    /// the message and `GET /v1/snaps/window` say when it opens.
    case outsideSnapWindow = "OUTSIDE_SNAP_WINDOW"
    /// An event of a type this service does not subscribe to.
    case unknownEventType = "UNKNOWN_EVENT_TYPE"
    /// Too many requests for this route class; see `Retry-After`.
    case rateLimitExceeded = "RATE_LIMIT_EXCEEDED"
    /// The `Range` asked for lies outside the file.
    case rangeNotSatisfiable = "RANGE_NOT_SATISFIABLE"
    /// tus: the upload expired; its bytes are gone.
    case uploadExpired = "UPLOAD_EXPIRED"
    /// The bytes are of an accepted type but cannot be used: an image that cannot be decoded
    /// or has more pixels than allowed (nothing is stored).
    case mediaRejected = "MEDIA_REJECTED"
    /// tus: the request does not speak tus 1.0.0 (`Tus-Resumable`).
    case tusVersionUnsupported = "TUS_VERSION_UNSUPPORTED"
    /// tus: the bytes do not match `Upload-Checksum` (nothing was appended), or the whole
    /// file does not match the SHA-256 declared in its metadata.
    case checksumMismatch = "CHECKSUM_MISMATCH"
    /// App Attest: the attestation does not verify: its certificates do not lead to the App
    /// Attest root, or its nonce, key id, counter or authenticator data are not what Apple makes.
    case attestationInvalid = "ATTESTATION_INVALID"
    /// App Attest: the attestation or assertion is for an app this server does not accept
    /// (`auth.appAttest.appIds`).
    case attestationAppMismatch = "ATTESTATION_APP_MISMATCH"
    /// App Attest: the assertion's signature does not verify with the key registered under
    /// `keyId`, or its authenticator data is malformed.
    case assertionInvalid = "ASSERTION_INVALID"
    /// App Attest: the assertion's counter is not above the last one accepted for its key (a
    /// replay).
    case assertionReplayed = "ASSERTION_REPLAYED"

    // MARK: - 5xx
    /// Something failed inside Pinhole; the request id finds it in the logs.
    case internalError = "INTERNAL_ERROR"
    /// The service that owns this route cannot be reached right now.
    case upstreamUnavailable = "UPSTREAM_UNAVAILABLE"
    /// The service that owns this route did not answer in time.
    case upstreamTimeout = "UPSTREAM_TIMEOUT"
    /// This process is starting or stopping and cannot take requests.
    case serviceUnavailable = "SERVICE_UNAVAILABLE"

    /// The HTTP status this code is sent with.
    public var status: Int {
        switch self {
        case .malformedRequest, .validationFailed, .invalidCursor, .invalidIdempotencyKey, .nfcPayloadMismatch,
            .attestationChallengeInvalid:
            400
        case .authenticationRequired, .invalidToken, .invalidCredentials, .invalidCode, .reauthRequired,
            .invalidTenantKey:
            401
        case .forbidden, .outsideSnapWindow, .tenantSuspended, .peerNotAllowed, .guestReadOnly,
            .phoneVerificationRequired, .emailVerificationRequired, .attestationRequired, .cannotMessage,
            .accountSuspended, .accountBanned:
            403
        case .notFound: 404
        case .methodNotAllowed: 405
        case .conflict, .idempotencyKeyInProgress, .assertionReplayed: 409
        case .payloadTooLarge: 413
        case .headersTooLarge: 431
        case .unsupportedMediaType: 415
        case .idempotencyKeyReused, .unknownEventType, .mediaRejected, .attestationInvalid, .attestationAppMismatch,
            .assertionInvalid:
            422
        case .noRecoveryTokens, .streakLimitReached, .premiumRequired: 402
        case .recoveryUnavailable, .friendStreakLimitReached: 409
        case .rateLimitExceeded: 429
        case .uploadExpired: 410
        case .rangeNotSatisfiable: 416
        case .tusVersionUnsupported: 412
        case .checksumMismatch: 460
        case .internalError: 500
        case .upstreamUnavailable, .serviceUnavailable: 503
        case .upstreamTimeout: 504
        }
    }
}

/// The JSON body of every error response:
/// `{"error":{"code":"STABLE_CODE","message":"...","requestId":"..."}}`.
public struct ErrorEnvelope: Codable, Sendable, Equatable {
    /// The error itself.
    public var error: ErrorBody

    /// Creates an envelope around one error.
    public init(error: ErrorBody) {
        self.error = error
    }
}

/// The inner object of ``ErrorEnvelope``.
public struct ErrorBody: Codable, Sendable, Equatable {
    /// Stable, machine-readable code.
    public var code: ErrorCode
    /// Human-readable explanation; never contains secrets or library error text.
    public var message: String
    /// The request id, also sent as `X-Request-Id` and written on every log line.
    public var requestId: String?

    enum CodingKeys: String, CodingKey {
        case code, message, requestId
    }

    /// Creates an error body.
    public init(code: ErrorCode, message: String, requestId: String?) {
        self.code = code
        self.message = message
        self.requestId = requestId
    }
}
