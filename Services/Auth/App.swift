import ServiceHTTP
import ServiceStore

/// The auth service: users, credentials, sessions, tokens and signing keys.
@main
struct App {
    static func main() async {
        await ServiceMain.run(.auth, migrations: AuthStore.registerMigrations) { reader, metrics in
            try await buildApplication(reader: reader, metrics: metrics)
        }
    }
}
