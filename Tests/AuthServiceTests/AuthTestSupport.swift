import Contracts
import Crypto
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceHTTP
import ServiceStore
import TestSupport

@testable import AuthService

/// Runs `body` against an in-process auth application over a fresh data directory.
/// `media` and `streakStats` answer for those services' lookups (avatars, profiles).
func withAuth(
    clock: ManualClock = ManualClock(Date()), config: [String: String] = [:],
    directory existing: TestDataDirectory? = nil, media: Lookup<MediaSummary> = .fixed([:]),
    streakStats: Lookup<StreakProfileStats> = .fixed([:]),
    banAppeals: (@Sendable (BanAppeal) async throws -> Appeal)? = nil,
    _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
) async throws {
    let directory = try existing ?? TestDataDirectory.make()
    defer { if existing == nil { directory.remove() } }
    var dependencies = AuthDependencies(media: media, streakStats: streakStats, viewKeys: TestViewKeys.ring)
    if let banAppeals { dependencies.banAppeals = banAppeals }
    let app = try await buildApplication(
        reader: directory.reader(config), clock: clock, dependencies: dependencies)
    try await app.test(.router) { client in try await body(client) }
}

extension TestClientProtocol {
    /// Registers and signs in; returns the token pair.
    func signUp(_ email: String, password: String = "correct horse battery") async throws -> TokenResponse {
        _ = try await post("/v1/auth/register", RegisterRequest(email: email, password: password))
        let response = try await post("/v1/auth/login", LoginRequest(email: email, password: password))
        return try response.json(TokenResponse.self)
    }
}

/// Cheap Argon2 for tests that hash many PINs; the cost does not change any behaviour.
let fastHashing = ["auth.argon2.memoryKib": "256", "auth.argon2.iterations": "1"]

extension TestDataDirectory {
    /// Auth's database beside the running service, waiting its turn while the service writes
    /// (its outbox and jobs write in the background).
    func authDatabase() throws -> DatabaseQueue {
        try DatabaseQueue(path: authDatabasePath, configuration: Self.besideAuth)
    }

    /// The same file as a pool, for a second store on auth's database.
    func authDatabasePool() throws -> DatabasePool {
        try DatabasePool(path: authDatabasePath, configuration: Self.besideAuth)
    }

    private var authDatabasePath: String { url.appendingPathComponent("auth/auth.sqlite").path }

    private static var besideAuth: Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        return configuration
    }

    /// Gives `userID` a role directly in the database (as `pinhole admin grant` does through
    /// auth's internal route).
    func grant(_ role: Role, tenantID: String? = nil, to userID: String) throws {
        try authDatabase().write { db in
            try db.execute(
                sql: "INSERT INTO user_role (user_id, role, tenant_id) VALUES (?, ?, ?)",
                arguments: [userID, role.rawValue, tenantID ?? ""])
        }
    }
}

extension TestClientProtocol {
    /// The user id of a token's user.
    func userID(of tokens: TokenResponse) async throws -> String {
        try await get("/v1/me", token: tokens.accessToken).json(UserProfile.self).id
    }
}

extension AuthStore {
    /// Auth's stores over `pool`, beside a running service (mail its jobs would send is only
    /// scheduled: no runner runs here).
    static func beside(_ pool: DatabasePool, directory: TestDataDirectory, clock: any WallClock) throws -> AuthStore {
        let settings = try MailSettings(reader: directory.reader([:]), dataDirectory: directory.url)
        let mail = AccountMail(
            settings: settings, templates: try MailTemplates(),
            codes: EmailCodes(pepper: SymmetricKey(size: .bits256), entropy: SystemEntropy()),
            jobs: JobQueue(clock: clock), clock: clock, entropy: SystemEntropy())
        return AuthStore(
            database: pool, outbox: Outbox(source: .auth, clock: clock, entropy: SystemEntropy()),
            views: Views(keys: TestViewKeys.ring, clock: clock), mail: mail)
    }
}
