import ArgumentParser
import AsyncHTTPClient
import Contracts
import Foundation
import NIOHTTP1
import ServiceHTTP

/// `pinhole keys`: auth's signing keys.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List or rotate auth's token signing keys.", subcommands: [Rotate.self, List.self])

    /// Replaced keys whose successor is older than this are deleted by `rotate`: every token
    /// they signed has long expired (access tokens live at most an hour).
    static let retiredKeysKeptFor: TimeInterval = 86_400

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a new signing key; auth signs with it within auth.keysReloadSeconds, without a restart.",
            discussion: """
                The previous key stays in the JWKS until every token it signed has expired, so nobody \
                is signed out. Keys replaced more than a day ago are deleted.
                """)

        @OptionGroup var options: StackOptions

        func run() async throws {
            let settings = try await options.settings()
            let directory = SigningKeyStore.defaultDirectory(dataDirectory: settings.dataDirectory)
            let existing = try SigningKeyStore.load(from: directory)
            let key = try SigningKeyStore.createKey(in: directory, clock: SystemClock(), entropy: SystemEntropy())
            say("pinhole: new signing key \(key.kid)")
            let now = Date()
            for (index, old) in existing.enumerated() {
                let replacedAt = index + 1 < existing.count ? existing[index + 1].createdAt : key.createdAt
                if now.timeIntervalSince(replacedAt) > Keys.retiredKeysKeptFor {
                    try FileManager.default.removeItem(at: directory.appendingPathComponent("\(old.kid).jwk"))
                    say("pinhole: deleted key \(old.kid), replaced \(replacedAt)")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the signing keys, newest (signing) first.")

        @OptionGroup var options: StackOptions

        func run() async throws {
            let settings = try await options.settings()
            let keys = try SigningKeyStore.load(
                from: SigningKeyStore.defaultDirectory(dataDirectory: settings.dataDirectory))
            for (index, key) in keys.enumerated().reversed() {
                let role = index == keys.count - 1 ? "signing" : "replaced \(keys[index + 1].createdAt)"
                say("\(key.kid)  created \(key.createdAt)  \(role)")
            }
        }
    }
}

/// `pinhole admin`: roles, through auth's internal route with `pinhole`'s own certificate, so
/// the first admin can be named before anyone can use the admin API.
struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Grant or revoke roles (auth must be running).", subcommands: [Grant.self, Revoke.self])

    struct RoleOptions: ParsableArguments {
        @Option(help: "The user's email address.")
        var email: String

        @Option(help: "moderator, admin, tenant_admin or tenant_responder.")
        var role: String = "admin"

        @Option(help: "The tenant, for tenant_admin and tenant_responder.")
        var tenant: String?

        func change() throws -> RoleChange {
            guard let role = Role(rawValue: role) else {
                throw ValidationError("--role must be one of moderator, admin, tenant_admin, tenant_responder")
            }
            return RoleChange(email: email, role: role, tenantId: tenant)
        }
    }

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Grant a role to the user with this email.")
        @OptionGroup var options: StackOptions
        @OptionGroup var role: RoleOptions

        func run() async throws {
            try await Admin.send(try role.change(), revoke: false, options: options)
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a role from the user with this email.")
        @OptionGroup var options: StackOptions
        @OptionGroup var role: RoleOptions

        func run() async throws {
            try await Admin.send(try role.change(), revoke: true, options: options)
        }
    }

    static func send(_ change: RoleChange, revoke: Bool, options: StackOptions) async throws {
        let settings = try await options.settings()
        let client = InternalClient(tls: try TLSMaterial(paths: settings.pki), settings: settings)
        let response: InternalResponse
        do {
            response = try await client.post(
                change, to: .auth, path: "/internal/admin/roles" + (revoke ? "?revoke=true" : ""))
            try? await client.http.shutdown()
        } catch {
            try? await client.http.shutdown()
            say("pinhole: auth cannot be reached at \(settings.url(of: .auth).absoluteString): is the stack running?")
            throw ExitCode(1)
        }
        guard response.status.code == 200 else {
            let message =
                (try? response.decode(ErrorEnvelope.self).error.message) ?? "auth answered \(response.status.code)"
            say("pinhole: \(message)")
            throw ExitCode(1)
        }
        let roles = try response.decode(UserRoles.self)
        let names = roles.roles.map { grant in
            grant.tenantId.map { "\(grant.role.rawValue)@\($0)" } ?? grant.role.rawValue
        }
        say(
            "pinhole: \(change.email ?? roles.userId) now holds: \(names.isEmpty ? "no roles" : names.joined(separator: ", "))"
        )
    }
}
