import Contracts
import Foundation
import ServiceHTTP

/// The rule that some actions (posting) need a recent App Attest assertion from the
/// session: auth records when a session last made a valid one, and every service learns it
/// with the session state. A session that asserted a moment ago may still be behind the
/// token verifier's cached state, so a stale "no" is asked of auth once more before refusing.
public struct AttestationRequirement: Sendable {
    /// How recent the assertion must be.
    public let maxAge: TimeInterval
    let sessions: Lookup<SessionState>
    let clock: any WallClock

    public init(maxAge: TimeInterval, sessions: Lookup<SessionState>, clock: any WallClock) {
        self.maxAge = maxAge
        self.sessions = sessions
        self.clock = clock
    }

    /// Returns when `user`'s session asserted within ``maxAge``; otherwise 403
    /// `ATTESTATION_REQUIRED`.
    public func check(_ user: AuthenticatedUser) async throws {
        let now = clock.now()
        func recent(_ at: Date?) -> Bool { at.map { now.timeIntervalSince($0) <= maxAge } ?? false }
        if recent(user.attestedAt) { return }
        guard !user.isGuest, let state = try await sessions.find(user.sessionID), state.userId == user.userID,
            recent(state.attestedAt)
        else {
            throw ServiceError(
                .attestationRequired,
                "This needs a recent App Attest assertion from this device: POST /v1/me/attestation/assertions.")
        }
    }
}

extension ServiceRuntime {
    /// The requirement of a recent assertion within `maxAge`, asking auth's session state
    /// (nil for a runtime that checks no sessions).
    public func attestationRequirement(maxAge: TimeInterval) -> AttestationRequirement? {
        sessionLookup.map { AttestationRequirement(maxAge: maxAge, sessions: $0, clock: clock) }
    }
}
