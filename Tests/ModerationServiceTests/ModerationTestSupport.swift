import Foundation
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import Synchronization
import TestSupport
import Testing

@testable import ModerationService

/// Moderation's world in its router tests: an author whose objects of every kind others
/// report, reporters, and two moderators, with auth's view of each session (roles,
/// suspensions) kept where a test can change it.
struct ModerationWorld: Sendable {
    static func person(_ number: Int) -> String { String(format: "00000000-0000-4000-8000-%012d", number) }
    static let people = (0..<6).map(person)
    static let author = people[0]
    /// Made six days ago: a new account, whose reports weigh half.
    static let newcomer = people[4]
    static let moderators = [person(90), person(91)]
    static let post = "40000000-0000-4000-8000-000000000001"
    static let secondPost = "40000000-0000-4000-8000-000000000002"
    static let reply = "40000000-0000-4000-8000-000000000003"
    static let moderatorPost = "40000000-0000-4000-8000-000000000004"
    static let snap = "50000000-0000-4000-8000-000000000001"
    /// The snap's photo, whose thumbnail media gives the console.
    static let snapPhoto = "5a000000-0000-4000-8000-000000000001"
    static let thumbnail = ByteBuffer(bytes: [0xFF, 0xD8, 0xFF, 0xE0])
    static let message = "60000000-0000-4000-8000-000000000001"
    static let spot = "70000000-0000-4000-8000-000000000001"
    static let clip = "80000000-0000-4000-8000-000000000001"

    let harness: ServiceHarness
    let client: any TestClientProtocol
    let runner: JobRunner
    let sessions: Sessions
    let accounts: Accounts

    /// Auth as the console's sign-in meets it: each person's password is `pw-<their id>`;
    /// sessions the console ended are kept.
    final class Accounts: Sendable {
        let ended = Mutex([String]())

        func console(harness: ServiceHarness) -> ConsoleAccounts {
            ConsoleAccounts(
                signIn: { email, password in
                    let user = String(email.prefix { $0 != "@" })
                    guard password == "pw-\(user)" else {
                        return .refused(
                            status: 401,
                            ErrorBody(
                                code: .invalidCredentials, message: "The email or password is wrong.", requestId: nil))
                    }
                    return .signedIn(
                        accessToken: try await harness.token(for: user, session: "s-\(user)"), sessionID: "s-\(user)")
                },
                end: { [self] session, _ in self.ended.withLock { $0.append(session) } })
        }
    }

    /// Auth's answers about sessions: session `s-<user>` of each user, with what a test set.
    final class Sessions: Sendable {
        let states = Mutex([String: SessionState]())

        func lookup() -> Lookup<SessionState> {
            Lookup { [self] id in
                guard id.hasPrefix("s-") else { return nil }
                let user = String(id.dropFirst(2))
                return self.states.withLock { $0[user] }
                    ?? SessionState(sessionId: id, userId: user, limited: false, roles: [])
            }
        }

        func set(_ user: String, roles: [RoleGrant] = [], suspendedUntil: Date? = nil) {
            states.withLock {
                $0[user] = SessionState(
                    sessionId: "s-\(user)", userId: user, limited: false, roles: roles, suspendedUntil: suspendedUntil)
            }
        }
    }

    static func subjects(now: Date) -> ModerationSubjectLookup {
        let month = now.addingTimeInterval(-30 * 86400)
        func object(
            _ type: ReportTargetType, _ id: String, by owner: String = author, media: [String] = []
        ) -> ModerationSubject {
            ModerationSubject(
                type: type, id: id, ownerId: owner, text: "\(type.rawValue) \(id)", mediaIds: media, createdAt: month)
        }
        let users = people.map { person in
            ModerationSubject(
                type: .user, id: person, ownerId: person, text: "person", mediaIds: [],
                createdAt: person == newcomer ? now.addingTimeInterval(-6 * 86400) : month)
        }
        return .fixed(
            users + [
                object(.post, post), object(.post, secondPost), object(.reply, reply),
                object(.snap, snap, media: [snapPhoto]),
                object(.message, message), object(.spot, spot), object(.challengeClip, clip),
                object(.post, moderatorPost, by: moderators[0]),
            ],
            // The snap went to people[1] only; the message to people[2] only.
            hiddenFrom: [snap: Set(people[2...]), message: Set(people[3...] + [people[1]])])
    }

    /// A token for `user`'s session.
    func token(_ user: String) async throws -> String {
        try await harness.token(for: user, session: "s-\(user)")
    }

    func report(
        _ type: ReportTargetType, _ id: String, by reporter: String, reason: ReportReason = .spam
    ) async throws -> TestResponse {
        try await client.post(
            "/v1/reports", ReportCreate(targetType: type, targetId: id, reason: reason),
            token: try await token(reporter))
    }

    func act(
        _ action: ModerationActionKind, on type: ReportTargetType, _ id: String, by moderator: String = moderators[0],
        reason: String = "Against the rules", hours: Int? = nil
    ) async throws -> TestResponse {
        try await client.post(
            "/v1/moderation/actions",
            ModerationActionCreate(
                targetType: type, targetId: id, action: action, reason: reason, durationHours: hours),
            token: try await token(moderator))
    }

    /// Lets the session cache forget what it knew (it keeps answers five seconds).
    func forgetSessions() { harness.clock.advance(by: 6) }
}

func withModeration(
    config: [String: String] = [:], _ body: @escaping @Sendable (ModerationWorld) async throws -> Void
) async throws {
    let sessions = ModerationWorld.Sessions()
    for moderator in ModerationWorld.moderators { sessions.set(moderator, roles: [RoleGrant(role: .moderator)]) }
    let harness = try ServiceHarness(.moderation, config: config, sessions: sessions.lookup())
    let accounts = ModerationWorld.Accounts()
    let dependencies = ModerationDependencies(
        subjects: ModerationWorld.subjects(now: harness.clock.now()),
        users: .fixed(
            Dictionary(
                uniqueKeysWithValues: (ModerationWorld.people + ModerationWorld.moderators).map {
                    ($0, UserSummary(id: $0, displayName: "x"))
                })), accounts: accounts.console(harness: harness),
        previews: { $0 == ModerationWorld.snapPhoto ? ModerationWorld.thumbnail : nil })
    let parts = try await ModerationService.buildRouter(
        runtime: harness.runtime, reader: harness.reader, dependencies: dependencies)
    let runner = try #require(parts.services.compactMap { $0 as? JobRunner }.first)
    try await harness.test(parts) { client in
        try await body(
            ModerationWorld(harness: harness, client: client, runner: runner, sessions: sessions, accounts: accounts))
    }
}
