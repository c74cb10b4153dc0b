import ServiceHTTP
import ServiceStore

/// The streak service: the private friend graph and daily games (friends, streaks, snaps, prompts).
@main
struct App {
    static func main() async {
        await ServiceMain.run(.streak, migrations: StreakStore.registerMigrations) { reader, metrics in
            try await buildApplication(reader: reader, metrics: metrics)
        }
    }
}
