import ServiceHTTP
import ServiceStore

/// The moderation service: safety (reports, blocks, mutes, screening, the admin queue and audit log).
@main
struct App {
    static func main() async {
        await ServiceMain.run(.moderation, migrations: ModerationStore.registerMigrations) { reader, metrics in
            try await buildApplication(reader: reader, metrics: metrics)
        }
    }
}
